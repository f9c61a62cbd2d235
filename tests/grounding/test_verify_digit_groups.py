"""A list of numbers the cited items write apart ("PEPs 484, 526, 544") is read apart in the
quoted sentences, though quote form drops the spaces after its commas."""

from __future__ import annotations

from grounding.verification import Support, check
from grounding.verification.digit_groups import numbers_apart

ITEM = "Typing as defined by PEPs 484, 526, 544, 560, and 563 was built\nincrementally."
FORMED = "Typing as defined by PEPs 484,526,544,560,and 563 was built incrementally."


def test_numbers_the_items_write_apart_are_read_apart() -> None:
    assert numbers_apart(FORMED, ITEM).startswith("Typing as defined by PEPs 484, 526, 544, 560,")
    assert numbers_apart("It sent 1,000 requests.", "It sent 1,000 requests.") == (
        "It sent 1,000 requests."
    )


def test_a_claim_lists_the_numbers_of_its_quote() -> None:
    claim = "Typing was built incrementally across PEPs 484, 526, 544, 560 and 563."
    assert check(claim, Support(FORMED, ITEM)).problem is None
    changed = "Typing was built incrementally across PEPs 484, 526, 545, 560 and 563."
    assert (
        check(changed, Support(FORMED, ITEM)).problem
        == "the number 545 is not in the quoted evidence"
    )
