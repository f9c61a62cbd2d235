"""Numbers, defaults and booleans: the values a claim states must be the values its quotes
state, so a changed number, a swapped True/False or enabled/disabled, or a default the quotes
never mention is caught even when every other word matches."""

from __future__ import annotations

from collections.abc import Sequence

from grounding.verification.anchors import anchored, is_number
from grounding.verification.numbers import is_name_digits
from grounding.verification.quantities import converts
from retrieval.text import folded_words

NUMBER_WINDOW = 10
# The literals among the value words: a claim in another language, whose own words for
# "default" or "enabled" cannot be read, still writes `True` and `False` as code.
BOOLEANS = folded_words("true false")
# Words that state a value of their own: the claim may say them only if its quotes do.
VALUE_WORDS = BOOLEANS | folded_words("enabled disabled default defaults")


def number_problem(
    claim: Sequence[str],
    evidence: Sequence[str],
    *,
    anchor: bool,
    listed: frozenset[str] = frozenset(),
) -> str | None:
    """Why a number of the claim is unsupported: absent from the evidence (as written, or as
    the same duration in other units), or (when `anchor`) not near the same words there.
    `listed` are counts the claim gives its own list (enumerations.py), checked item by item."""
    present = {t for t in evidence if is_number(t)}
    for term in claim:
        # A name's digits ("HTTP/1.1") are in the evidence in a name or alone ("HTTP 1.1"),
        # but a name's digits in the evidence are no number of the claim's ("base64", 64).
        if is_name_digits(term) and term not in evidence and term[1:] not in present:
            return f"the version {term[1:]} of a name is not in the quoted evidence"
    named = _named_numbers(evidence)
    for i, term in enumerate(claim):
        if not is_number(term) or term in listed:
            continue
        if term not in present and converts(claim, i, evidence):
            continue
        if term not in present and i > 0 and (claim[i - 1], term) in named:
            continue  # "HTTP 2" of `HTTP/2`: the name anchors it
        if term not in present:
            return f"the number {term} is not in the quoted evidence"
        if anchor and not anchored(claim, i, evidence, NUMBER_WINDOW):
            return f"{term!r} is not near the same words in the quoted evidence"
    return None


def _named_numbers(evidence: Sequence[str]) -> set[tuple[str, str]]:
    """A name's digits in the evidence, each with the term before them: the claim may write
    the number apart from the same word ("HTTP 2" of `HTTP/2`, "Python 3.11" of `python3.11`,
    "the migration 0003" of "the migration `0003_rename`"), never after another ("64 lines" of
    "writes `base64`")."""
    return {
        (evidence[j - 1], term[1:])
        for j, term in enumerate(evidence)
        if j > 0 and is_name_digits(term)
    }


def value_problem(
    claim: Sequence[str], evidence: Sequence[str], words: frozenset[str] = VALUE_WORDS
) -> str | None:
    """The first default or boolean word of the claim (of `words`) its evidence does not
    state."""
    stated = set(evidence)
    missing = next((t for t in claim if t in words and t not in stated), None)
    return None if missing is None else f"the quoted evidence does not say {missing!r}"
