"""Whether a passage supports a claim: exact tokens, anchored negations and numbers, coverage."""

from __future__ import annotations

from grounding.verification.anchors import terms, unanchored
from grounding.verification.coverage import coverage_problem
from grounding.verification.identifiers import appears, exact_tokens
from retrieval.text import normalize_text


def support_problem(claim_text: str, evidence_text: str) -> str | None:
    """None when `evidence_text` supports `claim_text`, else why not (naming the offending token).

    Every exact token of the claim (number, version, quoted string, identifier, flag, path, URL)
    must appear verbatim; each number and negation must occur in the evidence within
    NUMBER_WINDOW / NEGATION_WINDOW words of a word next to it in the claim; then at least
    SUPPORT_THRESHOLD of its content words must appear.
    """
    claim = normalize_text(claim_text)
    if not claim:
        return "the claim is empty"
    evidence = normalize_text(evidence_text)
    tokens = exact_tokens(claim)
    for token in tokens:
        if not appears(token, evidence):
            return f"not in the cited evidence: {token!r}"
    anchor = unanchored(terms(claim), terms(evidence))
    if anchor is not None:
        return f"{anchor!r} is not near the same words in the cited evidence"
    return coverage_problem(claim, evidence, has_exact=bool(tokens))
