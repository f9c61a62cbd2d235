"""Content coverage: enough of a claim's content words must occur in what it rests on."""

from __future__ import annotations

import functools

from retrieval.text import CLAIM_WORDS, EVIDENCE_WORDS, has_cjk

# Share of a claim's content words (distinct, stopwords dropped, suffix-folded) that must occur in
# its cited evidence. 0.7 lets a claim rephrase a few words ("you can set" for "set") while a
# claim that adds its own facts fails; the exact-token check catches changed specifics even when
# most words match.
SUPPORT_THRESHOLD = 0.7


def coverage_problem(claim: str, evidence: str, *, has_exact: bool) -> str | None:
    words = content_words(claim)
    if not words:
        return None if has_exact else "the claim has no content words to check"
    folded_evidence = evidence.casefold()
    available = content_words(evidence, keep_stopwords=True)
    missing = sorted(w for w in words if w not in available and not _cjk_in(w, folded_evidence))
    if len(words) - len(missing) >= SUPPORT_THRESHOLD * len(words):
        return None
    return (
        f"{len(words) - len(missing)} of {len(words)} content words are in the cited evidence "
        f"(needs {SUPPORT_THRESHOLD:.0%}); missing: {', '.join(missing[:8])}"
    )


@functools.lru_cache(maxsize=64)
def content_words(text: str, *, keep_stopwords: bool = False) -> frozenset[str]:
    """Distinct casefolded, suffix-folded words of letters; stopwords dropped unless kept."""
    return frozenset((EVIDENCE_WORDS if keep_stopwords else CLAIM_WORDS)(text))


def _cjk_in(word: str, folded_evidence: str) -> bool:
    # Scripts written without spaces have no word boundaries: a run must appear as written.
    return has_cjk(word) and word in folded_evidence
