"""Additions: a claim that says its fact holds "also", "as well", "too" or "including" some
case adds to what its quotes say ("The transport's retries also handle read/write errors" of
"If you need other forms of retry behaviors, such as handling read/write errors, ..."). It
shares the quote's words, so coverage keeps it; what it adds is outside knowledge unless the
quotes add it too, or an earlier kept claim of the answer, quoting one of the same items, is
what it adds to ("A `Client` also applies configuration ..." after "... reuses connections")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from retrieval.text import fold_word

_ALSO, _TOO, _AS, _WELL = (fold_word(w) for w in ("also", "too", "as", "well"))
# "include", "includes" and "included" fold as "including" does, but only "including" adds a
# case: "The response includes the headers" says what "The response has the headers" says.
_INCLUDING = fold_word("including")
_INCLUDING_WORD = re.compile(r"\bincluding\b", re.IGNORECASE)


def addition_problem(
    claim: Sequence[str], evidence: Sequence[str], *, written: str, follows: bool
) -> str | None:
    """The claim's word of addition when its evidence has none and no earlier kept claim
    (`follows`) is what it adds to. `written` is the claim as written: whether a folded
    "including" is that word and not the verb "include"."""
    said, quoted = _additions(claim), _additions(evidence)
    if _INCLUDING_WORD.search(written) is None:
        said = [term for term in said if term != _INCLUDING]
    if follows or quoted or not said:
        return None
    if set(said) == {_INCLUDING} and _gives_cases(evidence):
        return None  # "errors, including resets" of "errors such as resets"
    return f"the claim adds {said[0]!r} to what the quoted evidence says"


def _additions(terms: Sequence[str]) -> list[str]:
    """The words of addition in `terms`: "also", "including", "as well" (not "as well as",
    which joins two nouns), and "too" ending its sentence ("works on SQLite too")."""
    out: list[str] = []
    for i, term in enumerate(terms):
        after = terms[i + 1] if i + 1 < len(terms) else ""
        if term in (_ALSO, _INCLUDING):
            out.append(term)
        elif term == _WELL and i > 0 and terms[i - 1] == _AS and after != _AS:
            out.append("as well")
        elif term == _TOO and not after:
            out.append(term)
    return out


# How evidence gives cases of what it says, as a claim's "including" does: "such as",
# "for example", "for instance", "e.g.".
_CASES = frozenset(
    (fold_word(a), fold_word(b))
    for a, b in (("such", "as"), ("for", "example"), ("for", "instance"), ("e", "g"))
)


def _gives_cases(terms: Sequence[str]) -> bool:
    return any(pair in _CASES for pair in pairwise(terms))
