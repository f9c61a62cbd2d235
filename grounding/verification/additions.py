"""Additions: a claim that says its fact holds "also", "as well", "too" or "including" some
case adds to what its quotes say ("The transport's retries also handle read/write errors" of
"If you need other forms of retry behaviors, such as handling read/write errors, ..."). It
shares the quote's words, so coverage keeps it; what it adds is outside knowledge unless the
quotes add it too, or an earlier kept claim of the answer, quoting the same document, is
what it adds to ("A `Client` also applies configuration ..." after "... reuses connections"), or
the quotes add a case in words of their own ("as well as", "in addition to", "besides"), or a
clause of the claim's before it, in the quotes' words, is ("..., and it also sends headers").
A first claim's "also" with none of these is an addition the quotes lack: what it adds to is
outside the answer, and it tells the reader the evidence holds another case when it may not."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from grounding.verification.anchors import is_content
from retrieval.text import fold_word, folded_words

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
    found = _additions(claim)
    if _INCLUDING_WORD.search(written) is None:
        found = [(i, term) for i, term in found if term != _INCLUDING]
    # What the claim says before its word may be what it adds to, when the clause the word is
    # in says only the evidence's words: "Clients pool connections, and they also send
    # headers" is two claims in one, the first the "also"'s ("..., and timeouts as well" adds).
    said = [term for i, term in found if not _adds_to_itself(claim, i, evidence)]
    if follows or _adds(evidence) or not said:
        return None
    if set(said) == {_INCLUDING} and _gives_cases(evidence):
        return None  # "errors, including resets" of "errors such as resets"
    return f"the claim adds {said[0]!r} to what the quoted evidence says"


def _additions(terms: Sequence[str]) -> list[tuple[int, str]]:
    """The words of addition in `terms` and where: "also", "including", "as well" (not "as
    well as", which joins two nouns), and "too" ending its sentence ("works on SQLite too")."""
    out: list[tuple[int, str]] = []
    for i, term in enumerate(terms):
        after = terms[i + 1] if i + 1 < len(terms) else ""
        if term in (_ALSO, _INCLUDING):
            out.append((i, term))
        elif term == _WELL and i > 0 and terms[i - 1] == _AS and after != _AS:
            out.append((i, "as well"))
        elif term == _TOO and not after:
            out.append((i, term))
    return out


# Words that open a clause of its own after another ("..., and they also send ..."), and what a
# quote adds a case with besides the claim's words: "in addition (to)", "additionally",
# "besides", "moreover", "furthermore", and "as well as" joining two nouns ("retries refused
# connections as well as resets" gives what "also retries resets" adds to).
_CLAUSE_JOINS = folded_words("and but")
_QUOTE_ADDS = folded_words("additionally besides moreover furthermore")
_IN, _ADDITION = fold_word("in"), fold_word("addition")


def _adds_to_itself(claim: Sequence[str], i: int, evidence: Sequence[str]) -> bool:
    """Term `i` is in a clause of its own after one of the claim's (after a sentence end, or
    an "and" or a "but" that follows a content word), and that clause's content words are all
    the evidence's."""
    start = next(
        (
            k
            for k in range(i - 1, 0, -1)
            if (claim[k] == "" or claim[k] in _CLAUSE_JOINS)
            and any(is_content(t) for t in claim[:k])
        ),
        None,
    )
    if start is None:
        return False
    end = next((k for k in range(i, len(claim)) if claim[k] == ""), len(claim))
    clause = [t for t in claim[start + 1 : end] if is_content(t) and t != claim[i]]
    return bool(clause) and set(clause) <= set(evidence)


def _adds(terms: Sequence[str]) -> bool:
    """The evidence adds a case itself: a word of addition of a claim's, or one of its own."""
    if _additions(terms) or _QUOTE_ADDS & set(terms):
        return True
    return any(
        pair == (_IN, _ADDITION)
        or (pair == (_AS, _WELL) and k + 2 < len(terms) and terms[k + 2] == _AS)
        for k, pair in enumerate(pairwise(terms))
    )


# How evidence gives cases of what it says, as a claim's "including" does: "such as",
# "for example", "for instance", "e.g.".
_CASES = frozenset(
    (fold_word(a), fold_word(b))
    for a, b in (("such", "as"), ("for", "example"), ("for", "instance"), ("e", "g"))
)


def _gives_cases(terms: Sequence[str]) -> bool:
    return any(pair in _CASES for pair in pairwise(terms))
