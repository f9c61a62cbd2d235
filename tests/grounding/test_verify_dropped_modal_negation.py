"""A negation in modal form that the claim drops: "X MUST NOT be used with Y" denies the use,
so "you can use X with Y" is wrong though "used" is a function word and "use" is another
form of it; a claim keeping the negation ("must not use", "don't use") is kept. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import one_item_packet, verify_quoting

QUOTE = "The legacy key MUST NOT be used with the bulk endpoint."
PACKET = one_item_packet(f"# Keys\n\n{QUOTE} Send it to the single endpoint instead.\n")


def _kept(claim: str) -> bool:
    return bool(verify_quoting(PACKET, claim, QUOTE).claims)


def test_a_claim_that_drops_a_modal_negation_of_a_passive_is_dropped() -> None:
    result = verify_quoting(PACKET, "You can use the legacy key with the bulk endpoint.", QUOTE)
    assert not result.claims
    assert "negates 'used'" in result.dropped[0].detail


def test_a_claim_that_keeps_the_negation_is_kept() -> None:
    assert _kept("You must not use the legacy key with the bulk endpoint.")
    assert _kept("Don't use the legacy key with the bulk endpoint.")
