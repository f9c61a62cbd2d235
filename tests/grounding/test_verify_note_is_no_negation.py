"""A word that folds like a negation is not one: "Note that ..." states a fact, it negates none
(issue 9 measured such claims dropped as unanchored negations)."""

from __future__ import annotations

from grounding.verification import support_problem


def test_a_claim_starting_with_note_is_not_read_as_a_negation() -> None:
    claim = "Note that this disables SSL verification."
    evidence = "Passing verify=False disables SSL verification; use it only for local testing."
    assert support_problem(claim, evidence) is None


def test_a_real_negation_still_needs_its_anchor() -> None:
    evidence = "Passing verify=False disables SSL verification; use it only for local testing."
    problem = support_problem("This does not disable SSL verification.", evidence)
    assert problem is not None and "'not'" in problem
