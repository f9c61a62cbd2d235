"""Content coverage: enough of a claim's content words must occur in what it rests on, words
meeting through the shared text module's morphology: fold_word's inflections (retries/retry),
then Snowball's derivations (configuration/configure, redirection/redirects). Number words are
left to the number checks."""

from __future__ import annotations

import functools
from dataclasses import replace

from grounding.verification.anchors import without_tails
from grounding.verification.numbers import SPELLED
from retrieval.text import CLAIM_WORDS, EVIDENCE_WORDS, SnowballStemmer, fold_word, has_cjk

# Share of a claim's content words (distinct, stopwords dropped) that must occur in the sentences
# its quotes stand in, and in its cited items whole. Fit together by benchmarks/verifier_fit.py
# on the model answers' train split (best balanced accuracy of faithful kept and unfaithful
# dropped by kind, the middle of its plateau; docs/performance-verifier.md, "Model answers").
# Lower than the 0.7 of whole chunks this rule used to take: the quoted sentences are far
# shorter than a chunk, and a paraphrase brings its own words ("you", "instead", "pass").
SUPPORT_THRESHOLD = 0.45
CITED_THRESHOLD = 0.40

_RAW_CLAIM_WORDS = replace(CLAIM_WORDS, stem=None)
_RAW_EVIDENCE_WORDS = replace(EVIDENCE_WORDS, stem=None)
_SNOWBALL = SnowballStemmer("english")


def coverage_problem(
    claim: str, evidence: str, *, has_exact: bool, threshold: float = SUPPORT_THRESHOLD
) -> str | None:
    found, missing = coverage(claim, evidence)
    total = len(found) + len(missing)
    if not total:
        return None if has_exact else "the claim has no content words to check"
    if len(found) >= threshold * total:
        return None
    return (
        f"{len(found)} of {total} content words are in the quoted evidence "
        f"(needs {threshold:.0%}); missing: {', '.join(missing[:8])}"
    )


def coverage(claim: str, evidence: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The claim's content words found in `evidence` and those missing, each sorted."""
    folded_evidence = evidence.casefold()
    folds, stems = _evidence_forms(evidence)
    words = _raw_words(without_tails(claim))
    found = {
        w
        for w in words
        if fold_word(w) in folds or _SNOWBALL(w) in stems or _cjk_in(w, folded_evidence)
    }
    # A number word the evidence does not spell out is left to the number checks, which read
    # it by value ("fifty" is in "50"); one it spells out counts as found, as any word.
    missing = {w for w in words - found if w not in SPELLED}
    return tuple(sorted(found)), tuple(sorted(missing))


@functools.lru_cache(maxsize=256)
def _raw_words(text: str) -> frozenset[str]:
    return frozenset(_RAW_CLAIM_WORDS(text))


@functools.lru_cache(maxsize=64)
def _evidence_forms(text: str) -> tuple[frozenset[str], frozenset[str]]:
    raw = frozenset(_RAW_EVIDENCE_WORDS(text))
    return frozenset(map(fold_word, raw)), frozenset(map(_SNOWBALL, raw))


def _cjk_in(word: str, folded_evidence: str) -> bool:
    # Scripts written without spaces have no word boundaries: a run must appear as written.
    return has_cjk(word) and word in folded_evidence
