"""What a quote's negation denies, past its first word: an adverb ("does not automatically
drain"), a word of possibility and its verb ("it is not possible to drain"), a second verb
joined by "or", and a negation said by a verb ("refuses to drain") or by "neither". A claim
stating the denied verb plainly drops the negation; a claim keeping it is kept. Made-up
sentences, no benchmark item."""

from __future__ import annotations

import pytest

from tests.grounding.support_checks import one_item_packet, verify_quoting


def _kept(quote: str, claim: str) -> bool:
    packet = one_item_packet(f"# Pump\n\n{quote} The sump is emptied by hand.\n")
    return bool(verify_quoting(packet, claim, quote).claims)


@pytest.mark.parametrize(
    ("quote", "claim"),
    [
        ("The pump does not automatically drain the tank.", "The pump drains the tank."),
        ("The pump does not currently drain the tank.", "The pump drains the tank."),
        ("The pump no longer drains the tank on shutdown.", "The pump drains the tank."),
        ("The pump is not yet able to drain the tank.", "The pump can drain the tank."),
        ("It is not possible to drain the tank from the panel.", "You can drain the tank."),
        ("There is no way to drain the tank from the panel.", "You can drain the tank."),
        ("The pump does not drain or flush the tank.", "The pump flushes the tank."),
        ("The pump refuses to drain a full tank.", "The pump drains a full tank."),
        ("The pump fails to drain a full tank.", "The pump drains a full tank."),
        ("Neither the pump nor the valve drains the tank.", "The pump drains the tank."),
    ],
)
def test_a_claim_stating_what_the_negation_reaches_is_dropped(quote: str, claim: str) -> None:
    assert not _kept(quote, claim)


@pytest.mark.parametrize(
    ("quote", "claim"),
    [
        ("The pump does not automatically drain the tank.", "The pump does not drain the tank."),
        ("The pump no longer drains the tank on shutdown.", "The pump no longer drains the tank."),
        ("It is not possible to drain the tank from the panel.", "You can't drain the tank."),
        (
            "It is not possible to drain the tank from the panel.",
            "Draining the tank from the panel is not possible.",
        ),
        ("The pump does not drain or flush the tank.", "The pump neither drains nor flushes it."),
        ("The pump refuses to drain a full tank.", "The pump will not drain a full tank."),
        ("The pump fails to drain a full tank.", "The pump does not drain a full tank."),
        ("Neither the pump nor the valve drains the tank.", "The pump does not drain the tank."),
        # "not only" denies nothing; "does not apply" governs "apply", not the word after.
        ("The pump not only drains the tank but flushes it.", "The pump drains the tank."),
        ("The limit does not apply to the sump pump.", "The sump pump has no limit."),
    ],
)
def test_a_claim_keeping_the_negation_is_kept(quote: str, claim: str) -> None:
    assert _kept(quote, claim)


@pytest.mark.parametrize(
    "claim",
    [
        "The pump refuses to drain a full tank.",
        "The pump fails to drain a full tank.",
        "The pump skips draining a full tank.",
        "The pump avoids draining a full tank.",
    ],
)
def test_a_claim_saying_the_negation_with_a_verb_keeps_it(claim: str) -> None:
    # The verbs added_negation reads as "not" keep the quote's "not" as well.
    assert _kept("The pump does not drain a full tank.", claim)
    assert not _kept("The pump does not drain a full tank.", "The pump drains a full tank.")
