"""Quantities: a number with a unit right after it. "72 hours" is "3 days" is "259200 seconds",
so a claim may say a duration in other units than its quote; and "3 hours" is not "3 days",
though both have the number 3 near the same words."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from types import MappingProxyType

from grounding.verification.anchors import is_number
from retrieval.text import fold_word, folded_words


def _units(table: dict[str, Fraction]) -> MappingProxyType[str, Fraction]:
    return MappingProxyType({fold_word(word): size for word, size in table.items()})


# Each unit's size in the smallest one of its kind (seconds; bytes).
DURATIONS = _units(
    {
        "ms": Fraction(1, 1000),
        "millisecond": Fraction(1, 1000),
        "milliseconds": Fraction(1, 1000),
        "s": Fraction(1),
        "sec": Fraction(1),
        "secs": Fraction(1),
        "second": Fraction(1),
        "seconds": Fraction(1),
        "min": Fraction(60),
        "mins": Fraction(60),
        "minute": Fraction(60),
        "minutes": Fraction(60),
        "h": Fraction(3600),
        "hr": Fraction(3600),
        "hrs": Fraction(3600),
        "hour": Fraction(3600),
        "hours": Fraction(3600),
        "day": Fraction(86400),
        "days": Fraction(86400),
        "week": Fraction(604800),
        "weeks": Fraction(604800),
    }
)
# Sizes are only told apart, not converted: "1 MB" is 1,000,000 or 1,048,576 bytes by taste.
# Each spelling of a size unit, as the one name it is told apart by ("2.5 MB" is "2.5
# megabytes"; "2.5 GB" is not).
_SIZE_NAMES = {
    "byte": "byte bytes",
    "kilobyte": "kb kib kilobyte kilobytes",
    "megabyte": "mb mib megabyte megabytes",
    "gigabyte": "gb gib gigabyte gigabytes",
    "terabyte": "tb tib terabyte terabytes",
}
SIZE_UNITS = MappingProxyType(
    {fold_word(word): name for name, words in _SIZE_NAMES.items() for word in words.split()}
)
SIZES = frozenset(SIZE_UNITS)
_IN = fold_word("in")


def unit_after(terms: Sequence[str], i: int) -> str | None:
    """The unit right after number `i`, if the next term is one."""
    following = terms[i + 1] if i + 1 < len(terms) else ""
    return following if following in DURATIONS or following in SIZES else None


def seconds(terms: Sequence[str], i: int) -> Fraction | None:
    """Number `i` as a duration in seconds: its unit right after it, else a sentence's "in
    seconds" ("Default: 30 (in seconds)")."""
    unit = unit_after(terms, i) or _stated_unit(terms, i)
    if unit is None or unit not in DURATIONS:
        return None
    try:
        return Fraction(terms[i]) * DURATIONS[unit]
    except ValueError:
        return None


def _stated_unit(terms: Sequence[str], i: int) -> str | None:
    """The unit of an "in <unit>" in number `i`'s sentence."""
    start = i
    while start > 0 and terms[start - 1]:
        start -= 1
    end = i
    while end < len(terms) and terms[end]:
        end += 1
    for k in range(start, end - 1):
        if terms[k] == _IN and terms[k + 1] in DURATIONS:
            return terms[k + 1]
    return None


def converts(claim: Sequence[str], i: int, evidence: Sequence[str]) -> bool:
    """Claim number `i` with its unit is a duration the evidence states in other units."""
    if unit_after(claim, i) is None:
        return False
    said = seconds(claim, i)
    return said is not None and any(
        is_number(term) and seconds(evidence, j) == said for j, term in enumerate(evidence)
    )


def unit_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A number the claim gives a unit that none of its occurrences in the evidence has,
    where they all have one of the same kind ("3 hours" from "3 days")."""
    for i, term in enumerate(claim):
        unit = unit_after(claim, i) if is_number(term) else None
        if unit is None:
            continue
        units = [unit_after(evidence, j) for j, other in enumerate(evidence) if other == term]
        if not units or _same_unit(unit, units) or converts(claim, i, evidence):
            continue
        kind = DURATIONS if unit in DURATIONS else SIZES
        if all(u is not None and u in kind for u in units):
            return f"the number {term} is in {unit!r} here, in {units[0]!r} in the quoted evidence"
    return None


def _same_unit(unit: str, units: Sequence[str | None]) -> bool:
    """`unit` is one of `units`, a size unit in any of its spellings."""
    name = SIZE_UNITS.get(unit, unit)
    return any(u is not None and SIZE_UNITS.get(u, u) == name for u in units)


# A unit said without a number: "given in milliseconds" states the unit values are in, and "an
# hour after" a duration of one unit. Not "second" alone: "a second request" is a position.
_PER = fold_word("per")
_ONE_OF = folded_words("a an")
_AROUND_ONE = folded_words("after before later ago")
_BEFORE_ONE = folded_words("after within for in than")
_ONE_UNITS = folded_words("millisecond minute hour day week")


def bare_unit_problem(claim: Sequence[str], evidence: Sequence[str]) -> str | None:
    """A unit the claim states values in ("in milliseconds", "per minute") where the evidence
    states another of the same kind and not it; or a duration of one unit ("an hour after",
    "within a day") whose unit the evidence never says."""
    stated = set(evidence)
    for i, term in enumerate(claim):
        if term in stated or i == 0 or (term not in DURATIONS and term not in SIZES):
            continue
        before, after = claim[i - 1], claim[i + 1] if i + 1 < len(claim) else ""
        if before in (_IN, _PER):
            kind = DURATIONS if term in DURATIONS else SIZES
            others = [t for t in stated if t in kind and not _same_unit(term, [t])]
            if others:
                return f"the claim says {term!r} where the quoted evidence says {others[0]!r}"
        elif before in _ONE_OF and term in _ONE_UNITS:
            opens = i > 1 and claim[i - 2] in _BEFORE_ONE
            if opens or after in _AROUND_ONE:
                return f"the quoted evidence gives no duration of one {term!r}"
    return None
