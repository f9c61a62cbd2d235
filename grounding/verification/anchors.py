"""A claim's terms and the windows that bind a negation or a number to its words: "does not
retry" shares every content word with "retries", and "week 17" is not supported by "week 16 ...
17 touchdowns"."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from grounding.verification.numbers import canonical, compose
from retrieval.text import NEGATIONS, fold_word, nfkc
from retrieval.text.words import CLAIM_STOPWORDS

_CONTRACTION = re.compile(r"n[’']t\b", re.IGNORECASE)  # haven't, doesn't, won't, can't
# Python's `None` is a value, not a negation ("or `None` for no limits"), unless it starts a
# sentence ("None of the options ...").
_NONE_VALUE = re.compile(r"(?<=[^\s.!?:] )None\b|(?<=[`=(\[{,])None\b")
# Words, ordinals in digits ("3rd"), whole numbers, and sentence ends (kept as "" so a window
# never crosses a sentence).
_TERM = re.compile(
    r"\d+(?:st|nd|rd|th)\b|\d+(?:[.,]\d+)*|[^\W\d_]+(?:-[^\W\d_]+)?|[.!?](?=\s|$)|\n\s*\n"
)


def terms(text: str) -> tuple[str, ...]:
    """Casefolded, suffix-folded words, numbers by value (`five` and `5.0` are `5`, "sixty four"
    is `64`), and "" for sentence ends; "n't" is "not"."""
    return spaced_terms(text)[0]


@functools.lru_cache(maxsize=256)  # the same evidence is checked once per claim citing it
def spaced_terms(text: str) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """`terms(text)`, and for each whether only whitespace (or a hyphen inside a word) parts it
    from the term before: in "max_keepalive_connections=5, max_connections=10" the 5 is not
    followed by a noun it counts, a comma is between."""
    text = _NONE_VALUE.sub("nonevalue", _CONTRACTION.sub(" not", nfkc(text))).casefold()
    matches = list(_TERM.finditer(text))
    spaced = [
        i > 0 and not text[matches[i - 1].end() : m.start()].strip() for i, m in enumerate(matches)
    ]
    out: list[tuple[str, bool]] = []
    for token, joined in compose([m.group() for m in matches], spaced):
        parts = _terms_of(token)
        out += [(part, joined if k == 0 else True) for k, part in enumerate(parts)]
    return tuple(t for t, _ in out), tuple(j for _, j in out)


def _terms_of(token: str) -> tuple[str, ...]:
    value = canonical(token)
    if value is not None:
        return (value,)
    if not token[0].isalpha():
        return ("",)
    return tuple(fold_word(part) for part in token.split("-"))


def is_number(term: str) -> bool:
    return term[:1].isdigit()


def anchored(claim: Sequence[str], i: int, evidence: Sequence[str], window: int) -> bool:
    """Whether claim term `i` occurs in `evidence` within `window` words of a word next to it in
    the claim; True when it has no such word (the presence checks are all there is)."""
    neighbours = neighbour_words(claim, i)
    if not neighbours:
        return True
    term = claim[i]
    spots = (j for j, other in enumerate(evidence) if _same(term, other))
    return any(neighbours & sentence_window(evidence, j, window) for j in spots)


def sentence_window(terms: Sequence[str], j: int, width: int) -> set[str]:
    """Up to `width` terms on each side of `j`, not crossing a sentence end."""
    start = j
    while start > 0 and j - start < width and terms[start - 1]:
        start -= 1
    end = j + 1
    while end < len(terms) and end - j <= width and terms[end]:
        end += 1
    return set(terms[start:end])


def neighbour_words(terms: Sequence[str], i: int, width: int = 3) -> set[str]:
    near = sentence_window(terms, i, width) - {terms[i]}
    return {t for t in near if len(t) > 1 and t[0].isalpha() and t not in STOPWORDS_FOLDED}


def _same(term: str, other: str) -> bool:
    return other in NEGATIONS if term in NEGATIONS else other == term


STOPWORDS_FOLDED = frozenset(fold_word(w) for w in CLAIM_STOPWORDS) - NEGATIONS
