"""A negated necessity ("don't have to", "doesn't need", "not required") denies a need, not the
fact after it: kept against evidence that states no need ("the size is chosen automatically"),
dropped against evidence that states one ("you need to set the size"). Made-up sentences, no
benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

CHOSEN = "The loom picks the thread size automatically when the pattern is loaded."
NEEDED = "Before weaving, you need to set the thread size on the loom."
REQUIRED = "Weaving requires a thread size set on the loom."


def test_a_need_the_evidence_never_states_may_be_denied() -> None:
    kept("You don't have to pick the thread size: the loom picks it automatically.", CHOSEN)
    kept("The loom doesn't need a thread size: it picks it automatically.", CHOSEN)


def test_a_need_the_evidence_states_may_not_be_denied() -> None:
    dropped("Before weaving, you don't need to set the thread size on the loom.", NEEDED)
    dropped("Weaving does not require a thread size set on the loom.", REQUIRED)
    dropped("Before weaving, you don't have to set the thread size on the loom.", NEEDED)


def test_a_plain_negation_is_still_an_added_one() -> None:
    dropped("The loom does not pick the thread size automatically.", CHOSEN)


INSTRUCTED = "Oil the loom before the first weave of the day."


def test_a_need_the_evidence_gives_as_an_instruction_may_not_be_denied() -> None:
    dropped("You don't have to oil the loom before the first weave of the day.", INSTRUCTED)
    dropped("The loom doesn't need oiling before the first weave of the day.", INSTRUCTED)


def test_an_instruction_opened_by_an_adverb_or_an_urging_may_not_be_denied() -> None:
    # An imperative may open on an adverb ("Always oil ...", "Then oil ...") or be urged with
    # "to" ("Remember to oil ...", "Be sure to ...", "It is important to ..."): each tells the
    # reader to do it, as "Oil the loom ..." does.
    claim = "You don't have to oil the loom before the first weave of the day."
    for evidence in (
        "Always oil the loom before the first weave of the day.",
        "Then oil the loom before the first weave of the day.",
        "Please oil the loom before the first weave of the day.",
        "Remember to oil the loom before the first weave of the day.",
        "Be sure to oil the loom before the first weave of the day.",
        "It is important to oil the loom before the first weave of the day.",
    ):
        dropped(claim, evidence)


def test_an_adverb_inside_a_description_is_no_instruction() -> None:
    # "The weaver always oils the loom": who does it is said, the reader is told nothing.
    kept(
        "You don't have to oil the loom before the first weave: the weaver always oils it.",
        "The weaver always oils the loom before the first weave of the day.",
    )
