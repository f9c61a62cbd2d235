"""Defaults: "defaults to 64", "Default: ``64``", "(Default 64)", "the default size is 64",
"64 by default", "by default ... 64". When both the claim and its quotes state a default value,
the claim's must be one of the quotes': a quote that gives 64 as the default and 1024 for bulk
imports does not support "defaults to 1024", though it holds every word of it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from grounding.verification.anchors import is_number
from grounding.verification.quantities import seconds, unit_after
from retrieval.text import fold_word, folded_words

_DEFAULT = fold_word("default")
_BY = fold_word("by")
_THE = fold_word("the")
_TRUE, _FALSE = fold_word("true"), fold_word("false")
_NONE = fold_word("nonevalue")  # anchors.terms' spelling of Python's None
# How far a default's value may sit from the word: "the default queue size is 64" (after it),
# "is 30 seconds by default" (before "by"), "By default the queue holds 64 jobs" (after).
_AFTER = 8
# Words that start another clause: "By default it retries, and set `retries` to 5 for more"
# gives no default of 5.
_CLAUSE_STARTS = folded_words(
    "and but or so then while which when whereas unless if for set pass use"
)
_BEFORE = 3


def is_value(term: str) -> bool:
    return is_number(term) or term in (_TRUE, _FALSE, _NONE)


def shown(value: str) -> str:
    """A value term as a reader writes it: `True`, not the folded "tru"."""
    return {_TRUE: "True", _FALSE: "False", _NONE: "None"}.get(value, value)


def default_spots(terms: Sequence[str]) -> list[int]:
    """Where the values `terms` state as a default are."""
    found: list[int] = []
    for k, term in enumerate(terms):
        if term != _DEFAULT:
            continue
        spot = None
        if k > 0 and terms[k - 1] == _BY:
            start = max(0, k - 1 - _BEFORE)
            spot = _first_value(terms, range(k - 2, start - 1, -1))
        if spot is None:
            spot = _first_value(terms, range(k + 1, min(len(terms), k + 1 + _AFTER)))
        if spot is None:
            spot = _value_named(terms, k)
        if spot is not None:
            found.append(spot)
    return found


def _value_named(terms: Sequence[str], k: int) -> int | None:
    """The value right before a "default" that names it, with no value after it: "If true (the
    default), ...", "2 (default) or more"."""
    before = k - 2 if k > 1 and terms[k - 1] == _THE else k - 1
    return before if before >= 0 and is_value(terms[before]) else None


def _first_value(terms: Sequence[str], spots: Iterable[int]) -> int | None:
    for k in spots:
        term = terms[k]
        if not term or term == _DEFAULT or term in _CLAUSE_STARTS:
            return None  # the sentence or its clause ended, or another default begins
        if is_value(term):
            return k
    return None


def default_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A default the claim states that is none of those its quotes state, as written or as the
    same duration in other units ("24 hours by default" from "Default: 86400 (in seconds)")."""
    stated_spots = default_spots(evidence)
    if not stated_spots:
        return None
    stated = {evidence[k] for k in stated_spots}
    durations = {seconds(evidence, k) for k in stated_spots} - {None}
    for k in default_spots(claim):
        if claim[k] in stated or (unit_after(claim, k) and seconds(claim, k) in durations):
            continue
        given = ", ".join(sorted(map(shown, stated)))
        return f"the claim gives {shown(claim[k])} as the default, the quoted evidence {given}"
    return None


# A signature: `def name(...)` or a reST directive's `.. class:: Name(...)`, its parameters in
# group 1. A call (`httpx.Client(timeout=None)`) passes values; only a signature declares
# defaults.
_SIGNATURE = re.compile(
    r"(?:\bdef[ \t]+\w+|\.\.[ \t]+(?:py:)?(?:class|method|function)::[ \t]*[\w.]+)"
    r"[ \t]*\(([^()]*)\)"
)
_KEYWORD = re.compile(r"^\s*\**(\w+)\s*=\s*(-?\d+(?:\.\d+)?|True|False|None)\s*$")


def signature_defaults(text: str) -> str:
    """Each literal default a signature in `text` declares, as a sentence saying so: "def
    __init__(self, min_length=8)" gives "min_length defaults to 8." (appended to the quoted
    evidence, so "`min_length` defaults to 8" is read against a stated default)."""
    said = []
    for match in _SIGNATURE.finditer(text):
        for parameter in match.group(1).split(","):
            keyword = _KEYWORD.match(parameter)
            if keyword is not None:
                said.append(f"{keyword.group(1)} defaults to {keyword.group(2)}.")
    return "\n\n" + "\n\n".join(said) if said else ""
