"""A condition closed by its negation, its verb left out ("If it isn't, the user gets an
error"), negates nothing after its comma: a claim saying it with an alternative ("..., or the
user gets an error") keeps the quote's meaning. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import one_item_packet, verify_quoting

TOKEN = "A token must be present. If it isn't, the user will get an error."
QUOTES = ("A token must be present.", "If it isn't, the user will get an error.")


def test_an_elliptic_condition_said_with_an_alternative_is_kept() -> None:
    packet = one_item_packet(TOKEN)
    for claim in (
        "Requests need a token, or the user gets an error.",
        "A token must be present; otherwise the user gets an error.",
    ):
        assert verify_quoting(packet, claim, *QUOTES).claims, claim


def test_a_negation_the_claim_drops_is_still_dropped() -> None:
    packet = one_item_packet(TOKEN)
    assert not verify_quoting(packet, "If it is, the user gets an error.", QUOTES[1]).claims
    denied = one_item_packet("Requests do not, by default, follow redirects.")
    claim = "Requests follow redirects by default, or they fail."
    assert not verify_quoting(denied, claim, denied.items[0].chunk.text).claims
