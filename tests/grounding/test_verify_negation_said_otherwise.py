"""A negation the evidence says with a prefix or a zero: "aren't limited" of "are unlimited",
"isn't valid" of "is invalid", "no arguments" of "zero arguments". The negation is kept where
the evidence word shares the words around it; elsewhere it is still an added negation. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

KILN = "Clay and glass firings are unlimited. The kiln token is invalid after a restart."
SPOON = "The spoon hook is called with zero arguments when the pot boils."


def test_a_negation_the_evidence_writes_as_a_prefix_is_kept() -> None:
    kept("Clay and glass firings aren't limited.", KILN)
    kept("After a restart the kiln token is not valid.", KILN)


def test_a_no_the_evidence_writes_as_zero_is_kept() -> None:
    kept("The spoon hook is called with no arguments when the pot boils.", SPOON)


def test_a_negation_of_other_words_is_still_dropped() -> None:
    dropped("Clay and glass firings are not fired in the kiln.", KILN)
    dropped("The kiln token isn't limited after a restart.", KILN)
    dropped("The spoon hook is not called when the pot boils.", SPOON)
    dropped("The spoon hook is called with no pot when it boils.", SPOON)


VALVE = "The cleanup step unlocks the valve. The valve is unlocked after a flush."


def test_a_prefix_that_reverses_a_verb_is_no_negation_of_it() -> None:
    # "unlocks the valve" undoes a locking, it does not say "does not lock": a claim's "not"
    # before a verb is said with a prefix only of a state ("is not locked" of "is unlocked").
    dropped("The cleanup step does not lock the valve.", VALVE)
    dropped("The cleanup step doesn't lock the valve.", VALVE)
    kept("The valve is not locked after a flush.", VALVE)
    kept("After a flush the valve isn't locked.", VALVE)
