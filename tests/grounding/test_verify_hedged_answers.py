"""A claim opening on a hedged "no" ("Not really:", "Not quite,", "Not necessarily.") answers the
question, as "No:" does: the "not" denies no word of the claim. The words after it are checked as
any others. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

KETTLE = "Use the electric kettle for tea; the stove kettle may be removed in a future release."


def test_a_hedged_no_before_the_answer_is_kept() -> None:
    for claim in (
        "Not really: use the electric kettle for tea, the stove kettle may be removed later.",
        "Not quite, use the electric kettle for tea.",
        "Not necessarily. Use the electric kettle for tea.",
    ):
        kept(claim, KETTLE)


def test_a_negation_after_the_hedge_is_still_read() -> None:
    problem = dropped("Not really: do not use the electric kettle for tea.", KETTLE)
    assert "not" in problem, problem
