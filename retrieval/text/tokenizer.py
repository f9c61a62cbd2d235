"""The one tokenizer, and the three ways docbot reads text with it: search's index terms, the
extractive generator's terms, and the verifier's content words.

Pure: the only state is a bounded, thread-safe memo of token -> terms, which never changes a
result. Each configuration's deliberate differences are its parameters, pinned by tests
(tests/retrieval/test_text_configs.py) that say why each exists.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import chain
from types import MappingProxyType

from retrieval.text.scripts import (
    CJK,
    CJK_RUNS,
    camel_parts,
    cjk_bigrams,
    nfkc,
    nfkc_casefold,
)
from retrieval.text.stemmers import SnowballStemmer, fold_word, light_stem
from retrieval.text.words import (
    CJK_FUNCTION_WORDS,
    CLAIM_STOPWORDS,
    QUESTION_STOPWORDS,
    SEARCH_STOPWORDS,
    SHORTHANDS,
)

# A word, or dotted name such as `httpx.Client` or `3.11`; case is kept until the
# identifier has been split at its case changes.
DOTTED_WORD = re.compile(r"\w+(?:\.\w+)*")
# A word, or a name joined by `.`, `/`, `:` or `-`: `HTTP/2`, `docs/api.md`, `utf-8`.
JOINED_WORD = re.compile(r"\w+(?:[./:\-]\w+)*")
# A run of letters: no digits, no underscores.
LETTER_RUN = re.compile(r"[^\W\d_]+")
_ASCII_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_UNICODE_PART = re.compile(r"[^\W\d_]+|\d+")
# Bounded: a long build must not grow the memo without end. An lru_cache is safe to share
# between threads by construction; a shared dict that one thread clears while another reads it
# is not (it raised KeyError under concurrent queries). Search's memo holds a corpus's
# vocabulary; the generator's and the verifier's see only packets, so theirs is the size their
# stemmers' caches had (each entry is a few hundred bytes in a server that runs for weeks).
MEMO_SIZE = 300_000
PACKET_MEMO_SIZE = 1 << 16
_NO_SYNONYMS: Mapping[str, str] = MappingProxyType({})


class Identifiers(StrEnum):
    """How a token is cut into the parts that are stemmed and matched."""

    # At dots into names, each name at underscores and case changes; digits stay with the
    # letters before them (`sha256`). The dotted whole and each compound name are kept too.
    NAMES = "names"
    # Into runs of letters and of digits, at case changes too; a token of several parts is also
    # kept whole (lowercased), and its digit parts are then dropped: the whole carries them.
    WORDS = "words"
    # Not cut: the token is one word (the pattern already matched words of letters).
    WHOLE = "whole"


@dataclass(frozen=True, slots=True, eq=False)
class Tokenizer:
    """Turns text into terms: normalize, find tokens, cut identifiers, drop stopwords and short
    parts, map synonyms, stem; CJK runs become bigrams.

    `stem` applies to alphabetic parts only: never to an identifier's whole form
    (`follow_redirects`, `httpx.client`), to words holding digits, or to CJK.
    """

    stopwords: frozenset[str] = SEARCH_STOPWORDS
    keep_dotted: bool = True  # NAMES: `httpx.client` kept whole besides `httpx` and `client`
    # Snowball English: +0.019 recall@5 on SQuAD, no loss on the httpx or Django FAQ questions
    # (docs/performance.md); `None` turns it off.
    stem: Callable[[str], str] | None = field(default_factory=lambda: SnowballStemmer("english"))
    word: re.Pattern[str] = DOTTED_WORD
    identifiers: Identifiers = Identifiers.NAMES
    normalize: Callable[[str], str] = nfkc
    min_length: int = 1  # shorter parts are dropped, unless they are numbers
    synonyms: Mapping[str, str] = field(
        default_factory=lambda: _NO_SYNONYMS
    )  # applied to a part before it is stemmed
    cjk: bool = True  # runs of CJK become bigrams; else a CJK word is kept as written
    cjk_stops: tuple[str, ...] = ()  # a CJK run is split at these before its bigrams
    memo_size: int = MEMO_SIZE  # distinct tokens remembered
    _cached: Callable[[str], tuple[str, ...]] = field(init=False, repr=False)
    _cjk_split: re.Pattern[str] | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        cached = functools.lru_cache(maxsize=self.memo_size)(self._token)
        object.__setattr__(self, "_cached", cached)
        stops = "|".join(sorted(map(re.escape, self.cjk_stops), key=len, reverse=True))
        object.__setattr__(self, "_cjk_split", re.compile(stops) if stops else None)

    def __call__(self, text: str) -> list[str]:
        words = self.word.findall(self.normalize(text))
        # Looked up and flattened in C: this runs over every word of every document.
        return list(chain.from_iterable(map(self._cached, words)))

    def _token(self, raw: str) -> tuple[str, ...]:
        if self.cjk and CJK.search(raw):
            return tuple(self._mixed(raw))
        if self.identifiers is Identifiers.NAMES:
            return tuple(self._names(raw))
        if self.identifiers is Identifiers.WORDS:
            return tuple(self._words(raw))
        return tuple(self._finish([raw]))

    def _mixed(self, raw: str) -> Iterator[str]:
        """A token mixing CJK and other letters, e.g. `Python的文档`: bigrams for the CJK runs,
        the rest read as tokens of its own."""
        for index, piece in enumerate(CJK_RUNS.split(raw)):
            if index % 2:  # re.split puts the captured CJK runs at odd positions
                runs = self._cjk_split.split(piece) if self._cjk_split else (piece,)
                yield from (bigram for run in runs if run for bigram in cjk_bigrams(run))
            elif piece:
                yield from chain.from_iterable(map(self._cached, self.word.findall(piece)))

    def _names(self, raw: str) -> Iterator[str]:
        names = raw.split(".")
        if len(names) > 1 and self.keep_dotted:
            yield raw.casefold()
        for name in names:
            whole, parts = _identifier(name)
            if whole is not None:
                yield whole
            yield from self._finish(parts)

    def _words(self, raw: str) -> Iterator[str]:
        parts = _word_parts(raw)
        if len(parts) > 1:
            # The whole identifier carries the numbers: `3.9` must not match the 3 of `HTTP/3`.
            yield raw.lower()
            parts = [p for p in parts if not p.isdigit()]
        yield from self._finish(parts)

    def _finish(self, parts: list[str]) -> Iterator[str]:
        """Stopwords and short parts dropped (by their written form), synonyms mapped, then
        alphabetic parts stemmed."""
        stem, synonyms, shortest = self.stem, self.synonyms, self.min_length
        for part in parts:
            if part in self.stopwords or (len(part) < shortest and not part.isdigit()):
                continue
            part = synonyms.get(part, part)
            yield stem(part) if stem is not None and part.isalpha() else part


def _identifier(name: str) -> tuple[str | None, list[str]]:
    """`getUserName` -> (getusername, [get, user, name]); a plain word is its own part.

    The whole form of a compound name is returned apart: it is indexed as written.
    """
    whole = name.casefold()
    if not whole.strip("_"):
        return None, []
    parts = [p.casefold() for chunk in name.split("_") if chunk for p in camel_parts(chunk)]
    if parts == [whole]:
        return None, [whole]
    return whole, list(dict.fromkeys(p for p in parts if p != whole))


def _word_parts(token: str) -> list[str]:
    """A token's words, split at case changes and digits: `getUserName` -> get, user, name."""
    if token.isascii():
        return [p.lower() for p in _ASCII_PART.findall(token)]
    letters = _UNICODE_PART.findall(token)
    return [p.lower() for run in letters for p in (camel_parts(run) if run.isalpha() else [run])]


# Search: documents and queries alike. Keeps single letters and the function words that tell
# questions apart (words.SEARCH_STOPWORDS); NFKC so full-width and ligature forms meet.
SEARCH = Tokenizer()

# The extractive generator's terms of questions and answer units. It differs from search where
# matching a question against one sentence (not a document against an index) was measured to
# need it; each difference has a test in tests/retrieval/test_text_configs.py.
ANSWER_TERMS = Tokenizer(
    stopwords=QUESTION_STOPWORDS,
    stem=light_stem,
    word=JOINED_WORD,
    identifiers=Identifiers.WORDS,
    normalize=nfkc,
    min_length=2,
    synonyms=SHORTHANDS,
    cjk_stops=CJK_FUNCTION_WORDS,
    memo_size=PACKET_MEMO_SIZE,
)

# The verifier's content words of a claim and its evidence: casefolded words of letters, folded
# by fold_word; a CJK run is kept whole and matched as a substring (verify.py), since a claim
# must quote it.
CLAIM_WORDS = Tokenizer(
    stopwords=CLAIM_STOPWORDS,
    stem=fold_word,
    word=LETTER_RUN,
    identifiers=Identifiers.WHOLE,
    normalize=nfkc_casefold,
    min_length=2,
    cjk=False,
    memo_size=PACKET_MEMO_SIZE,
)
# The same, stopwords kept: what a claim's words may be found among.
EVIDENCE_WORDS = replace(CLAIM_WORDS, stopwords=frozenset())


def tokenize(text: str) -> list[str]:
    """docbot's search tokenizer: NFKC, casefold, identifiers split (keeping the whole), CJK
    bigrams, Snowball English."""
    return SEARCH(text)
