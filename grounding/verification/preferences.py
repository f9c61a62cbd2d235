"""Which side of a preference a claim puts a thing on: the evidence's "X in preference to Y",
"X rather than Y", "X instead of Y" put Y on the side not chosen, so a claim that prefers or
recommends Y turns the preference around."""

from __future__ import annotations

from collections.abc import Sequence

from grounding.verification.anchors import content_after, is_content, sentence_window
from retrieval.text import NEGATIONS, fold_word, folded_words

# How many content words after a preference word name what it is about ("a backslash").
_GOVERNED = 2
_CHOSEN = 8  # how far before "in preference to" the chosen side is read
_REACH = 3  # a negation this near a claim's preference word reverses it: "does not prefer"
_PREFERRING = folded_words("prefer prefers preferred preferring recommend recommends")
# What ends the preferred side in a claim: "prefers X to / over Y", "X rather than Y".
_OVER = folded_words("to over than rather instead")
# The evidence's words before what is not chosen, read as the last word of a phrase: "in
# preference to", "rather than", "instead of".
_NOT_CHOSEN = {
    fold_word("preference"): fold_word("to"),
    fold_word("rather"): fold_word("than"),
    fold_word("instead"): fold_word("of"),
}


def preference_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """The first thing the claim prefers that its quote names as the one not chosen."""
    passed = _not_chosen(evidence)
    if not passed:
        return None
    for i, term in enumerate(claim):
        if term not in _PREFERRING or NEGATIONS & sentence_window(claim, i, _REACH):
            continue
        preferred = set(content_after(claim, i, _GOVERNED, _OVER))
        turned = preferred & passed
        if turned:
            passed_over = sorted(turned)[0]
            return f"the claim prefers {passed_over!r}, which the quoted evidence passes over"
    return None


def _not_chosen(evidence: Sequence[str]) -> set[str]:
    """The content words the evidence names as not chosen: those right after "in preference
    to", "rather than" or "instead of", but for words it says of the chosen side too (the
    "lid" of "glass lids ... in preference to a tin lid")."""
    out: set[str] = set()
    for j, term in enumerate(evidence[:-1]):
        if _NOT_CHOSEN.get(term) == evidence[j + 1]:
            chosen = {t for t in _before(evidence, j, _CHOSEN) if is_content(t)}
            out.update(set(content_after(evidence, j + 1, _GOVERNED)) - chosen)
    return out


def _before(terms: Sequence[str], j: int, width: int) -> list[str]:
    """Up to `width` terms before `j`, not crossing a sentence end."""
    out: list[str] = []
    for term in reversed(terms[max(0, j - width) : j]):
        if not term:
            break
        out.append(term)
    return out
