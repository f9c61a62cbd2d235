"""What the verifier says of one made-up claim against made-up evidence, for the tests that
pin what a number means: kept (no problem) or dropped (its problem)."""

from __future__ import annotations

from grounding.verification import Support, check, support_problem


def kept(claim: str, evidence: str) -> None:
    problem = support_problem(claim, evidence)
    assert problem is None, problem


def dropped(claim: str, evidence: str) -> str:
    problem = support_problem(claim, evidence)
    assert problem is not None, f"kept: {claim!r}"
    return problem


def other_language_problem(claim: str, evidence: str) -> str | None:
    """The problem of a claim in another language than its evidence, read as one."""
    verdict = check(claim, Support(evidence, evidence))
    assert verdict.other_language, claim
    return verdict.problem


def other_language_dropped(claim: str, evidence: str) -> str:
    """The problem of a claim in another language than its evidence, which must have one."""
    problem = other_language_problem(claim, evidence)
    assert problem is not None, f"kept: {claim!r}"
    return problem
