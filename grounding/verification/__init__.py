"""Verification of a model's response against its evidence packet, in code, before anyone sees
it: response.py runs the order; quotes, identifiers, anchors and coverage are its checks."""

from __future__ import annotations

from grounding.verification.coverage import SUPPORT_THRESHOLD, content_words
from grounding.verification.identifiers import exact_tokens
from grounding.verification.messages import (
    no_claims_message,
    not_answered_message,
    unverified_message,
)
from grounding.verification.quotes import occurs, quote_form
from grounding.verification.response import (
    Verification,
    evidence_text,
    normalize_label,
    unknown_citations,
    unknown_quotes,
    verify,
)
from grounding.verification.support import support_problem

__all__ = [
    "SUPPORT_THRESHOLD",
    "Verification",
    "content_words",
    "evidence_text",
    "exact_tokens",
    "no_claims_message",
    "normalize_label",
    "not_answered_message",
    "occurs",
    "quote_form",
    "support_problem",
    "unknown_citations",
    "unknown_quotes",
    "unverified_message",
    "verify",
]
