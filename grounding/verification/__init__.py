"""Verification of a model's response against its evidence packet, in code, before anyone sees
it: response.py runs the order; quotes.py finds each quote in a cited item; support.py checks the
claim against its quotes (identifiers, values and numbers, negation, language, coverage)."""

from __future__ import annotations

from grounding.verification.coverage import CITED_THRESHOLD, SUPPORT_THRESHOLD
from grounding.verification.identifiers import exact_tokens
from grounding.verification.quotes import occurs, quote_form
from grounding.verification.response import (
    Verification,
    evidence_text,
    normalize_label,
    unknown_citations,
    unknown_quotes,
    verify,
)
from grounding.verification.support import Support, Verdict, check, support_problem

__all__ = [
    "CITED_THRESHOLD",
    "SUPPORT_THRESHOLD",
    "Support",
    "Verdict",
    "Verification",
    "check",
    "evidence_text",
    "exact_tokens",
    "normalize_label",
    "occurs",
    "quote_form",
    "support_problem",
    "unknown_citations",
    "unknown_quotes",
    "verify",
]
