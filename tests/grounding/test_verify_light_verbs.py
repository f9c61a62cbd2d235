"""A negated light verb denies its object's meaning: "does not make a recommendation" denies
recommending, "does not give a warning" warning, so a claim stating that plainly drops the
negation; one keeping it is kept. Made-up sentences, no benchmark item."""

from __future__ import annotations

import pytest

from tests.grounding.support_checks import one_item_packet, verify_quoting


def _kept(quote: str, claim: str) -> bool:
    packet = one_item_packet(f"# Pump\n\n{quote} The sump is emptied by hand.\n")
    return bool(verify_quoting(packet, claim, quote).claims)


@pytest.mark.parametrize(
    ("quote", "claim"),
    [
        (
            "This guide does not make a recommendation for the pump.",
            "This guide recommends the pump.",
        ),
        (
            "The pump does not give a warning when the tank is full.",
            "The pump warns when the tank is full.",
        ),
    ],
)
def test_a_claim_stating_the_denied_object_is_dropped(quote: str, claim: str) -> None:
    assert not _kept(quote, claim)


@pytest.mark.parametrize(
    ("quote", "claim"),
    [
        (
            "The pump does not give a warning when the tank is full.",
            "The pump gives no warning when the tank is full.",
        ),
        (
            "This guide does not make a recommendation for the pump.",
            "This guide makes no recommendation for the pump.",
        ),
    ],
)
def test_a_claim_keeping_the_negation_is_kept(quote: str, claim: str) -> None:
    assert _kept(quote, claim)
