"""A count that points back at a list the quote writes out ("only those three are merged" of
"For cups, bowls and plates, the glazes are mixed"): it has no noun of its own and counts that
list, so it needs no number in the evidence. A count with a noun, or of another length, is still
checked. Made-up sentences, no benchmark item."""

from __future__ import annotations

import pytest

from grounding.verification import enumerations
from grounding.verification.anchors import terms
from grounding.verification.enumerations import pointed_counts
from tests.grounding.support_checks import dropped, kept

GLAZES = (
    "For cups, bowls and plates, the glazes are mixed together.\n\n"
    "For every other piece, the piece's own glaze wins."
)


def test_a_count_pointing_back_at_the_quotes_list_is_kept() -> None:
    kept("Only those three have their glazes mixed; every other piece keeps its own glaze.", GLAZES)


def test_a_count_of_another_length_or_with_a_noun_is_dropped() -> None:
    dropped(
        "Only those four have their glazes mixed; every other piece keeps its own glaze.", GLAZES
    )
    dropped(
        "Only three pieces have their glazes mixed; every other piece keeps its own glaze.", GLAZES
    )


def test_the_quotes_lists_are_read_only_for_a_claim_pointing_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Reading a quote's prose lists scans all of it; a claim with no "those three" needs none.
    read: list[str] = []
    real = enumerations.list_items
    monkeypatch.setattr(enumerations, "list_items", lambda text: read.append(text) or real(text))
    assert pointed_counts(terms("The glazes of cups are mixed."), GLAZES) == frozenset()
    assert read == []
    assert pointed_counts(terms("Only those three are mixed."), GLAZES) == {"3"}
    assert read == ["For cups, bowls and plates"]


def test_a_run_too_long_for_a_word_holds_no_list_item() -> None:
    # A key or a data URI beside the list is no item of it; the list is still read.
    key = "ab1_" * 40
    quoted = f"For cups, bowls and plates, use the key {key}, {key} and {key}."
    assert pointed_counts(terms("Only those three are mixed."), quoted) == {"3"}
