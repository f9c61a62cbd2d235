"""A claim may write code between double backticks, as reST does (``name``): each span is one
piece of code, not the text between its second and third backtick. Read as single backticks,
"``MAX_UPLOADS``; set it to ``None``" checked "; set it to" as code the evidence must hold and
dropped a faithful claim. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.language import in_other_language
from tests.grounding.support_checks import one_item_packet, verify_quoting

ITEM = (
    "MAX_UPLOADS\n-----------\n\n"
    "Default: ``50``\n\n"
    "The most files one request may upload. Set it to ``None`` to turn the check off.\n"
)
QUOTE = "The most files one request may upload. Set it to ``None`` to turn the check off."
PACKET = one_item_packet(ITEM, path="settings.rst")


def test_two_double_backtick_spans_in_one_sentence_are_kept() -> None:
    claim = "The limit is ``MAX_UPLOADS``; set it to ``None`` to turn the check off."
    result = verify_quoting(PACKET, claim, QUOTE)
    assert result.claims, result.dropped


def test_code_inside_double_backticks_is_still_checked() -> None:
    claim = "The limit is ``MAX_UPLOAD_FILES``; set it to ``None`` to turn the check off."
    result = verify_quoting(PACKET, claim, QUOTE)
    assert not result.claims
    assert "MAX_UPLOAD_FILES" in result.dropped[0].detail


def test_a_double_backtick_span_is_code_to_the_language_check() -> None:
    # Read as two empty single-backtick spans, the words of ``...`` counted as prose, and the
    # Spanish words of a code span made an English sentence Spanish.
    assert not in_other_language("Set it to the value.", "Set ``para que los de la`` to it.")
