"""A claim's terms and the windows that bind a negation or a number to its words: "does not
retry" shares every content word with "retries", and "week 17" is not supported by "week 16 ...
17 touchdowns"."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from grounding.verification.numbers import (
    IDENTIFIER_WITH_DIGITS,
    canonical,
    compose,
    identifier_parts,
)
from retrieval.text import NEGATIONS, fold_word, folded_words, nfkc
from retrieval.text.words import CLAIM_STOPWORDS

_CONTRACTION = re.compile(r"n[’']t\b", re.IGNORECASE)  # haven't, doesn't, won't, can't
# The other contractions' tails are words of their own ("you'll" is "you will"), not the
# two-letter content words "ll", "re" and "ve" that no evidence says.
_TAILS = {"ll": " will", "re": " are", "ve": " have", "m": " am", "d": " would"}
_TAIL = re.compile(r"(?<=[^\W\d_])[’'](ll|re|ve|m|d)\b", re.IGNORECASE)
# Python's `None` is a value, not a negation ("or `None` for no limits"), unless it starts a
# sentence ("None of the options ...").
_NONE_VALUE = re.compile(r"(?<=[^\s.!?:] )None\b|(?<=[`=(\[{,])None\b")
# Words, ordinals in digits ("3rd"), whole numbers, and sentence ends (kept as "" so a window
# never crosses a sentence). A comma joins digits only as a thousands separator ("1,000"):
# "round(2.675,2)", as a quote's code is written with its spaces taken out, holds 2.675 and 2.
_TERM = re.compile(
    rf"{IDENTIFIER_WITH_DIGITS}|\d+(?:st|nd|rd|th)\b|\d+(?:\.\d+|,\d{{3}}(?!\d))*"
    r"|[^\W\d_]+(?:-[^\W\d_]+)?"
    r"|[.!?](?=\s|$)|\n\s*\n"
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
    text = _NONE_VALUE.sub("nonevalue", without_tails(_CONTRACTION.sub(" not", nfkc(text))))
    text = text.casefold()
    matches = list(_TERM.finditer(text))
    spaced = [
        i > 0 and not text[matches[i - 1].end() : m.start()].strip() for i, m in enumerate(matches)
    ]
    out: list[tuple[str, bool]] = []
    before = ""
    for token, joined in compose([m.group() for m in matches], spaced):
        parts = _terms_of(token)
        if before in _POSITION_AFTER and token in _FIRST_SECOND:
            parts = (_FIRST_SECOND[token],)
        out += [(part, joined if k == 0 else True) for k, part in enumerate(parts)]
        before = token
    return tuple(t for t, _ in out), tuple(j for _, j in out)


def without_tails(text: str) -> str:
    """`text` with "you'll", "they're", "we've" written out ("you will", ...)."""
    return _TAIL.sub(_tail, text)


def _tail(match: re.Match[str]) -> str:
    return _TAILS[match.group(1).casefold()]


# "first" and "second" are positions only after a determiner ("the second step", "its first
# argument"), so they can be checked like "third": "First, install it" and "30 seconds" are not.
_FIRST_SECOND = {"first": "1st", "second": "2nd"}
_POSITION_AFTER = frozenset(("the", "its", "their"))


def _terms_of(token: str) -> tuple[str, ...]:
    named = identifier_parts(token)
    if named is not None:  # "http2": a word and a version, not the number 2
        return tuple(part if part[0] == "_" else fold_word(part) for part in named)
    value = canonical(token)
    if value is not None:
        return (value,)
    if not token[0].isalpha():
        return ("",)
    return tuple(fold_word(part) for part in token.split("-"))


# An ordinal's noun is often its list's own ("the third step"; the list writes "3. Configure
# ..."), so the words an ordinal is read with reach past it to what the item says.
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
_ORDINAL_REACH = 6
# How far a number's anchor words are looked for when the words right next to it are all the
# paraphrase's own (set by hand, as the ordinal reach is).
_PARAPHRASE_REACH = 6


def is_number(term: str) -> bool:
    return term[:1].isdigit()


def is_ordinal(term: str) -> bool:
    """An ordinal, a position and not an amount: "third" and "3rd" are both the term "3rd"."""
    return _ORDINAL.fullmatch(term) is not None


def anchored(claim: Sequence[str], i: int, evidence: Sequence[str], window: int) -> bool:
    """Whether claim term `i` occurs in `evidence` within `window` words of a word next to it in
    the claim; True when it has no such word (the presence checks are all there is)."""
    width = _ORDINAL_REACH if is_ordinal(claim[i]) else 3
    neighbours = set().union(*(neighbour_words(claim, k, width) for k in _number_run(claim, i)))
    if not neighbours:
        return True
    term = claim[i]
    spots = [j for j, other in enumerate(evidence) if _same(term, other)]
    if spots and _DOTTED_NUMBER.fullmatch(term):
        # "since 3.11" of "Changed in version 3.11", "~= 2.2" of "``~= 2.2``": a number of
        # several parts the quoted sentences hold is rarely there by chance, whatever words
        # the claim puts around it; a plain integer ("10 connections" of an example's 10) is.
        return True
    if is_number(term):
        spots += _named_elsewhere(evidence, spots)
    if any(neighbours & sentence_window(evidence, j, window) for j in spots):
        return True
    if is_number(term) and any(_bare_value(evidence, j) for j in spots):
        # "Default: ``100``" on a line of its own is the value of what the other quoted
        # sentences document: their words are its words.
        return bool(neighbours & set(evidence))
    # The words right next to it may be the paraphrase's own ("can give it two or more" of "it
    # may have two or more"): they anchor nothing, so the words past them may. For a number,
    # also when they are words the evidence says elsewhere ("saves the recent calls, 128 when
    # used bare" of "... recent calls." and "maxsize at its default of 128"); a negation next
    # to words the evidence says is bound to them.
    if neighbours & set(evidence) and not is_number(term):
        return False
    wider = (neighbour_words(claim, k, _PARAPHRASE_REACH) for k in _number_run(claim, i))
    neighbours = set().union(*wider) - neighbours
    return any(neighbours & sentence_window(evidence, j, window) for j in spots)


_DOTTED_NUMBER = re.compile(r"\d+(?:\.\d+)+")
_VALUE_LINE_WORDS = folded_words("default value")


def _bare_value(evidence: Sequence[str], j: int) -> bool:
    """The number at `j` stands in a sentence whose only content words are "default" or
    "value" ("Default: 100"); a line of code with no words ("^= 4.2") is none."""
    near = {t for t in sentence_window(evidence, j, len(evidence)) if is_content(t)}
    return bool(near) and near <= _VALUE_LINE_WORDS


# The words a claim writes a version number after ("since 3.11", "Python 3.8", "added in 3.9"):
# such a number is a version, no setting's value (settings.py).
_VERSION_WORDS = folded_words("since python in version added new from until")


# The words that lead a version with a product's name between ("since Django 5.1", "in HTTPX
# 0.28", "added in Python 3.9"): the name is any one word.
_VERSION_LEADS = folded_words("since in from until added")


def versioned(terms: Sequence[str], i: int) -> bool:
    """Term `i` is a dotted number written as a version: right after a version word, or after
    one word (a product's name) right after a word that leads a version."""
    if "." not in terms[i] or not is_number(terms[i]) or i == 0:
        return False
    if terms[i - 1] in _VERSION_WORDS:
        return True
    named = i > 1 and terms[i - 1][:1].isalpha() and terms[i - 2] in _VERSION_LEADS
    return named


def _named_elsewhere(evidence: Sequence[str], spots: Sequence[int]) -> list[int]:
    """Where else the evidence names what a number at `spots` is the value of: "min_length=8"
    gives `min_length` 8, so "at least %(min_length)d characters" speaks of 8 characters. The
    name is the content word right before the number."""
    names = {evidence[j - 1] for j in spots if j > 0 and is_content(evidence[j - 1])}
    return [k for k, other in enumerate(evidence) if other in names and k + 1 not in spots]


# What joins numbers into one run ("ports 8000 and 8001", "2, 4 or 8 workers", "5 to 10").
_RUN_JOINS = folded_words("and or to")


def _number_run(terms: Sequence[str], i: int) -> range:
    """The run of numbers joined by "and", "or" or "to" that number `i` is in (`i` alone when
    it is in none): they share the words around them, "8001" the "ports" of "ports 8000 and
    8001". Commas part no terms, so "8000, 8001" is a run too."""
    if not is_number(terms[i]):
        return range(i, i + 1)
    start = i
    while start > 0 and is_number(terms[start - 1]):
        start -= 1
    while start > 1 and terms[start - 1] in _RUN_JOINS and is_number(terms[start - 2]):
        start -= 2
        while start > 0 and is_number(terms[start - 1]):
            start -= 1
    end = i + 1
    while end < len(terms) and (
        is_number(terms[end])
        or (terms[end] in _RUN_JOINS and end + 1 < len(terms) and is_number(terms[end + 1]))
    ):
        end += 1 if is_number(terms[end]) else 2
    return range(start, end)


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
    return {t for t in near if is_content(t)}


def _same(term: str, other: str) -> bool:
    return other in NEGATIONS if term in NEGATIONS else other == term


STOPWORDS_FOLDED = frozenset(fold_word(w) for w in CLAIM_STOPWORDS) - NEGATIONS


def content_after(
    terms: Sequence[str], i: int, limit: int, stop: frozenset[str] = frozenset()
) -> list[str]:
    """Up to `limit` content words after term `i`, in its sentence and before any `stop` word."""
    out: list[str] = []
    for term in terms[i + 1 :]:
        if not term or term in stop or len(out) == limit:
            break
        if is_content(term):
            out.append(term)
    return out


def is_content(term: str) -> bool:
    """A content word: a word of two letters or more that is not one of the verifier's
    stopwords (a negation counts: STOPWORDS_FOLDED leaves the negations out)."""
    return len(term) > 1 and term[0].isalpha() and term not in STOPWORDS_FOLDED
