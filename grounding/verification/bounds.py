"""Bounds: "at most 8", "up to 8" and "no more than 8" set a maximum, "at least 3" and "no
fewer than 3" a minimum. A claim that turns a bound around keeps its number and every word but
one, so it is read by the bound its number sets; and "no more than" bounds, it does not negate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from grounding.verification.anchors import is_number
from retrieval.text import fold_word, folded_words

Bound = Literal["max", "min"]


def _phrases(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(fold_word(w) for w in p.split()) for p in text.split(","))


# The words before a number that bound it, longest first where one ends another.
_MAX = _phrases(
    "no more than,not more than,no longer than,not longer than,no later than,at most,up to,"
    "less than,fewer than,maximum of,a maximum,maximum,max,under,below"
)
_MIN = _phrases(
    "no less than,not less than,no fewer than,not fewer than,no earlier than,at least,"
    "more than,longer than,minimum of,a minimum,minimum,min,over,above"
)
_PHRASES: tuple[tuple[tuple[str, ...], Bound], ...] = tuple(
    sorted(
        [(p, "max") for p in _MAX] + [(p, "min") for p in _MIN],
        key=lambda pair: -len(pair[0]),
    )
)
_NEGATED_BOUNDS = tuple(p for p, _ in _PHRASES if p[0] in ("no", "not"))


def bound_of(terms: Sequence[str], i: int) -> Bound | None:
    """The bound the words right before number `i` set, if any."""
    for phrase, bound in _PHRASES:
        start = i - len(phrase)
        if start >= 0 and tuple(terms[start:i]) == phrase:
            return bound
    return None


def opens_bound(terms: Sequence[str], i: int) -> bool:
    """Term `i` is the "no"/"not" of "no more than" and the like: a bound, not a negation."""
    return any(tuple(terms[i : i + len(p)]) == p for p in _NEGATED_BOUNDS)


# Words that describe a quote's number as a maximum or a minimum from further away than a bound
# phrase: "- `max_jobs`: the maximum number of queued jobs, 50 by default".
_DESCRIBES: dict[Bound, frozenset[str]] = {
    "max": folded_words("maximum max limit most"),
    "min": folded_words("minimum min least"),
}


def described_bound(block: Sequence[str]) -> Bound | None:
    """The one bound the words of a quote describe, if they describe exactly one."""
    kinds = [bound for bound, words in _DESCRIBES.items() if words & set(block)]
    return kinds[0] if len(kinds) == 1 else None


def bound_problem(
    claim: Sequence[str], evidence: Sequence[str], blocks: Sequence[Sequence[str]] = ()
) -> str | None:
    """A number the claim bounds one way where every occurrence of it in the evidence is
    bounded the other way ("at least 8" from "at most 8"). `blocks`, the evidence's quotes one
    by one, give an occurrence with no bound phrase the bound its quote describes, if any
    ("at least 50" from "the maximum number of queued jobs, 50 by default")."""
    for i, term in enumerate(claim):
        if not is_number(term):
            continue
        said = bound_of(claim, i)
        if said is None:
            continue
        stated = [
            _bound_in(block, j, described=bool(blocks))
            for block in (blocks or (evidence,))
            for j, other in enumerate(block)
            if other == term
        ]
        if stated and all(b is not None and b != said for b in stated):
            word = "maximum" if said == "max" else "minimum"
            return f"the claim makes {term} a {word}, the quoted evidence does not"
    return None


def _bound_in(block: Sequence[str], j: int, *, described: bool) -> Bound | None:
    phrase = bound_of(block, j)
    return phrase if phrase is not None or not described else described_bound(block)


# A range of the evidence: "between 2 and 3", "from 2 to 3". Each end is a bound of the range's
# numbers: a claim may give one end only as that bound ("up to 3", "at least 2").
_RANGES = ((fold_word("between"), fold_word("and")), (fold_word("from"), fold_word("to")))


def range_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A number the claim gives plainly, without the range's other end or the bound it is, where
    every occurrence of it in the evidence ends a range ("exactly three elements" of "between 2
    and 3 elements")."""
    ends = _range_ends(evidence)
    for i, term in enumerate(claim):
        if not is_number(term) or term not in ends or bound_of(claim, i) is not None:
            continue
        spots = [j for j, other in enumerate(evidence) if other == term]
        ranges = [ends[term][j] for j in spots if j in ends[term]]
        if len(ranges) < len(spots):
            continue  # the evidence also gives it on its own
        said = set(claim[max(0, i - 4) : i + 5])
        if any(low in said and high in said for low, high in ranges):
            continue  # "two or three elements": both ends
        low, high = ranges[0]
        return f"the quoted evidence gives {term} as an end of a range ({low} to {high})"
    return None


def _range_ends(terms: Sequence[str]) -> dict[str, dict[int, tuple[str, str]]]:
    """Each number ending a range, with where it is and the range's two ends."""
    out: dict[str, dict[int, tuple[str, str]]] = {}
    for k in range(len(terms) - 3):
        opener, low, join, high = terms[k : k + 4]
        if (opener, join) in _RANGES and is_number(low) and is_number(high):
            out.setdefault(low, {})[k + 1] = (low, high)
            out.setdefault(high, {})[k + 3] = (low, high)
    return out
