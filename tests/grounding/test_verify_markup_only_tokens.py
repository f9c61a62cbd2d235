"""A claim's code span of markup alone (`**`, `_`) that its cited items do not write as it is:
quote form leaves nothing of it, and reading that nothing as a token raised IndexError, so the
claim's whole answer failed. Such a span is a token the evidence does not hold: the claim is
dropped for it, with a reason. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.identifiers import appears
from tests.grounding.support_checks import dropped, kept

EVIDENCE = "The double star unpacks a mapping into keyword arguments."


def test_an_empty_token_appears_nowhere() -> None:
    assert not appears("", EVIDENCE)
    assert not appears("", "")


def test_a_markup_span_the_evidence_lacks_is_dropped_with_its_reason() -> None:
    assert "not in the cited evidence: '**'" in dropped(
        "The `**` operator unpacks a mapping into keyword arguments.", EVIDENCE
    )
    assert "'_'" in dropped("The `_` name unpacks a mapping into keyword arguments.", EVIDENCE)


def test_a_markup_span_the_evidence_writes_is_kept() -> None:
    kept(
        "The `**` operator unpacks a mapping into keyword arguments.",
        "The `**` operator unpacks a mapping into keyword arguments.",
    )
