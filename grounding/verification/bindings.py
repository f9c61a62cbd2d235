"""What a number belongs to: the noun phrase it counts ("500 entries", "3 database queries", "2
of the hooks") and a noun right before it ("port 8000"). When the claim gives a number to a word
the quoted evidence gives only other numbers, the claim moved the number: "500 hours" from
"expire after 2 hours ... holds 500 entries", "port 9000" from "port 8000 ... the proxy uses
9000". A word two or more terms before a number binds nothing: it is often the paraphrase's own
("set the queue size to 1024" for "set it to 1024"). "one", "a single", "a couple of" and a
leading "both" are counts here when they count a noun, so they must agree with the evidence."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from grounding.verification.anchors import STOPWORDS_FOLDED, is_number
from grounding.verification.quantities import converts, folded_words
from retrieval.text import fold_word

# How many function words may sit between a number and the noun phrase it counts ("2 of the
# hooks"), and how long that phrase is read ("3 database queries"). Set by hand from how
# English attaches a count, not fit.
SKIP = 2
PHRASE = 2
_ONE, _A = fold_word("one"), fold_word("a")
_BOTH = fold_word("both")
# "one" is no count after these ("the one that", "which one") nor before these ("one of them",
# "one another").
_NOT_COUNTED_AFTER = folded_words("the this that which each any every no another some")
_NOT_COUNTING = folded_words("of another")
# After "a": "a single hook" is one, "a couple of hooks" and "a pair of hooks" two.
_AFTER_A = {fold_word("single"): "1", fold_word("couple"): "2", fold_word("pair"): "2"}
# "both" counts where it opens a noun phrase: at a sentence start or after a preposition
# ("Both hooks run", "for both hooks"); "they are both hooks" says what they are, not how many.
_BEFORE_BOTH = folded_words("of for to on in with by from at")


def counts(terms: Sequence[str]) -> Iterator[tuple[int, str]]:
    """Each number of `terms` with its position, and each word counting a noun, as its value."""
    for i, term in enumerate(terms):
        if is_number(term):
            yield i, term
        else:
            value = _soft_count(terms, i)
            if value is not None:
                yield i, value


def _soft_count(terms: Sequence[str], i: int) -> str | None:
    term = terms[i]
    before = terms[i - 1] if i > 0 else ""
    after = terms[i + 1] if i + 1 < len(terms) else ""
    if term in _AFTER_A:
        return _AFTER_A[term] if before == _A else None
    if term == _BOTH:
        return "2" if (not before or before in _BEFORE_BOTH) and _is_content(after) else None
    if term == _ONE and before not in _NOT_COUNTED_AFTER and after and after not in _NOT_COUNTING:
        return "1"
    return None


def _is_content(term: str) -> bool:
    return len(term) > 1 and term[0].isalpha() and term not in STOPWORDS_FOLDED


def counted_words(terms: Sequence[str], i: int) -> tuple[str, ...]:
    """The noun phrase after count `i`: up to SKIP function words, then up to PHRASE content
    words in a row; () if a number or a sentence end comes first."""
    j, skipped = i + 1, 0
    while j < len(terms) and terms[j] and not _is_content(terms[j]) and skipped < SKIP:
        if is_number(terms[j]) or _soft_count(terms, j) is not None:
            return ()
        j, skipped = j + 1, skipped + 1
    phrase: list[str] = []
    while j < len(terms) and len(phrase) < PHRASE and _is_content(terms[j]):
        phrase.append(terms[j])
        j += 1
    return tuple(phrase)


def owner_before(terms: Sequence[str], i: int) -> str | None:
    """The content word right before number `i` ("port 8000"), if there is one."""
    return terms[i - 1] if i > 0 and _is_content(terms[i - 1]) else None


def binding_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A number of the claim counting a noun that the evidence counts only with other numbers,
    or following a noun the evidence follows only with other numbers. The noun a claim counts is
    the last word of its phrase; the evidence's phrase gives each of its words the number. A
    duration the evidence writes in other units ("72 hours" for "3 days") is left to the number
    check, which converts it."""
    counted: dict[str, set[str]] = {}
    owned: dict[str, set[str]] = {}
    for j, value in counts(evidence):
        for word in counted_words(evidence, j):
            counted.setdefault(word, set()).add(value)
        owner = owner_before(evidence, j)
        if owner is not None:
            owned.setdefault(owner, set()).add(value)
    for i, value in counts(claim):
        if value not in evidence and converts(claim, i, evidence):
            continue
        phrase = counted_words(claim, i)
        others = counted.get(phrase[-1], set()) if phrase else set()
        if others and value not in others:
            given = ", ".join(sorted(others))
            return (
                f"the number {value} counts {phrase[-1]!r} in the claim; the quoted evidence "
                f"gives {given} {phrase[-1]!r}"
            )
        owner = owner_before(claim, i)
        if owner is not None and value not in owned.get(owner, {value}):
            given = ", ".join(sorted(owned[owner]))
            return (
                f"the number {value} follows {owner!r} in the claim; the quoted evidence gives "
                f"{owner!r} {given}"
            )
    return None
