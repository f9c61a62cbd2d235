"""Negations and numbers bound to their words: "does not retry" shares every content word with
"retries", and "week 17" is not supported by "week 16 ... 17 touchdowns"."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from retrieval.text import NEGATIONS, fold_word, nfkc
from retrieval.text.words import CLAIM_STOPWORDS

# Windows are in words, on each side of the occurrence in the evidence.
NUMBER_WINDOW = 10
NEGATION_WINDOW = 5  # a negation binds to the words right next to it
_CONTRACTION = re.compile(r"n[’']t\b", re.IGNORECASE)
# Words, whole numbers, and sentence ends (kept as "" so a window never crosses a sentence).
_TERM = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+|[.!?](?=\s|$)|\n\s*\n")


@functools.lru_cache(maxsize=64)  # the same evidence is checked once per claim citing it
def terms(text: str) -> tuple[str, ...]:
    """Casefolded, suffix-folded words, whole numbers and "" for sentence ends; "n't" is "not"."""
    text = _CONTRACTION.sub(" not", nfkc(text)).casefold()
    return tuple(_term(t) for t in _TERM.findall(text))


def _term(token: str) -> str:
    if token[0].isdigit():
        return token
    return fold_word(token) if token[0].isalpha() else ""


def unanchored(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first negation or number of the claim whose neighbours are not near it in evidence."""
    for i, term in enumerate(claim):
        if not (term in NEGATIONS or term[:1].isdigit()):
            continue
        neighbours = _neighbour_words(claim, i)
        if not neighbours:
            continue  # nothing to anchor to: the verbatim check is all there is
        spots = [j for j, other in enumerate(evidence) if _same_anchor(term, other)]
        window = NEGATION_WINDOW if term in NEGATIONS else NUMBER_WINDOW
        if not any(neighbours & sentence_window(evidence, j, window) for j in spots):
            return term
    return None


def sentence_window(terms: Sequence[str], j: int, width: int) -> set[str]:
    """Up to `width` terms on each side of `j`, not crossing a sentence end."""
    start = j
    while start > 0 and j - start < width and terms[start - 1]:
        start -= 1
    end = j + 1
    while end < len(terms) and end - j <= width and terms[end]:
        end += 1
    return set(terms[start:end])


def _neighbour_words(terms: Sequence[str], i: int) -> set[str]:
    near = sentence_window(terms, i, 3) - {terms[i]}
    return {t for t in near if len(t) > 1 and t[0].isalpha() and t not in STOPWORDS_FOLDED}


def _same_anchor(term: str, other: str) -> bool:
    return other in NEGATIONS if term in NEGATIONS else other == term


STOPWORDS_FOLDED = frozenset(fold_word(w) for w in CLAIM_STOPWORDS) - NEGATIONS
