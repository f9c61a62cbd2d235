"""A count that points back at a list the quote writes out ("only those three are merged" of
"For cups, bowls and plates, the glazes are mixed"): it has no noun of its own and counts that
list, so it needs no number in the evidence. A count with a noun, or of another length, is still
checked. Made-up sentences, no benchmark item."""

from __future__ import annotations

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
