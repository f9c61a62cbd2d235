"""One end of a range given as the number ("exactly three parts" of "between 2 and 3 parts")
is a changed count: a claim may give a range's end only with the other end or as the bound it
is ("up to 3", "at least 2"). Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

PARTS = "A key used as a label must have between 2 and 3 parts."


def test_one_end_of_a_range_given_as_the_count_is_dropped() -> None:
    for claim in (
        "A key used as a label must have exactly three parts.",
        "A key used as a label must have 2 parts.",
    ):
        assert "end of a range" in dropped(claim, PARTS), claim
    assert "end of a range" in dropped(
        "The pool holds 8 workers.", "The pool holds from 4 to 8 workers."
    )


def test_a_range_said_whole_or_an_end_as_its_bound_is_kept() -> None:
    for claim in (
        "A key used as a label must have two or three parts.",
        "A key used as a label has between 2 and 3 parts.",
        "A key used as a label may have up to 3 parts.",
        "A key used as a label needs at least two parts.",
    ):
        kept(claim, PARTS)
    # The number is also in the evidence on its own.
    kept("A label has 3 parts.", "Between 2 and 3 parts are allowed; a label has 3 parts.")
