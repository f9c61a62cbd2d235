"""What a number counts: the nearest content word after it in its sentence ("500 entries",
"2 hours", "3 database queries"). When the claim counts with a number a word the quoted
evidence counts only with other numbers, the claim moved the number: "500 hours" from "expire
after 2 hours ... holds 500 entries". Only the word after: the word before is often the
paraphrase's own ("set the queue size to 1024" for "set it to 1024"), so it binds nothing.
"one" is a count here when it counts a noun ("one plugin hook", "a single hook"), so it must
agree with the count the evidence gives."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from grounding.verification.anchors import STOPWORDS_FOLDED, is_number
from grounding.verification.quantities import converts, folded_words
from retrieval.text import fold_word

# How many terms after a number its counted word may be: "3 database queries" (one), "2 of the
# hooks" (three, "of" and "the" skipped). Set by hand from how English attaches a count, not fit.
REACH = 3
_ONE, _SINGLE, _A = fold_word("one"), fold_word("single"), fold_word("a")
# "one" is no count after these ("the one that", "which one") nor before these ("one of them",
# "one another").
_NOT_COUNTED_AFTER = folded_words("the this that which each any every no another some")
_NOT_COUNTING = folded_words("of another")


def counts(terms: Sequence[str]) -> Iterator[tuple[int, str]]:
    """Each number of `terms` with its position, and "one" or "a single" counting a noun, as 1."""
    for i, term in enumerate(terms):
        if is_number(term):
            yield i, term
        elif _counts_one(terms, i):
            yield i, "1"


def _counts_one(terms: Sequence[str], i: int) -> bool:
    before = terms[i - 1] if i > 0 else ""
    after = terms[i + 1] if i + 1 < len(terms) else ""
    if terms[i] == _SINGLE:
        return before == _A
    return (
        terms[i] == _ONE
        and before not in _NOT_COUNTED_AFTER
        and bool(after)
        and after not in _NOT_COUNTING
    )


def counted_word(terms: Sequence[str], i: int) -> str | None:
    """The first content word after term `i`, within REACH terms and the sentence; None if a
    number or a sentence end comes first."""
    for j in range(i + 1, i + 1 + REACH):
        if j >= len(terms):
            return None
        term = terms[j]
        if not term or is_number(term) or _counts_one(terms, j):
            return None
        if len(term) > 1 and term[0].isalpha() and term not in STOPWORDS_FOLDED:
            return term
    return None


def binding_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A number of the claim counting a word that the evidence counts with other numbers and
    never with this one. A duration the evidence writes in other units ("72 hours" for "3
    days") is left to the number check, which converts it."""
    stated: dict[str, set[str]] = {}
    for j, value in counts(evidence):
        word = counted_word(evidence, j)
        if word is not None:
            stated.setdefault(word, set()).add(value)
    for i, value in counts(claim):
        if value not in evidence and converts(claim, i, evidence):
            continue
        word = counted_word(claim, i)
        others = stated.get(word, set()) if word is not None else set()
        if others and value not in others:
            return (
                f"the number {value} counts {word!r} in the claim; the quoted evidence gives "
                f"{', '.join(sorted(others))} {word!r}"
            )
    return None
