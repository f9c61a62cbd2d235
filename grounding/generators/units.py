"""Answer units of an evidence packet, each with the context a reader needs to judge it.

A unit (a sentence, list item, table row or code block, see segmentation.py) is read with its
headings, a table row with its table's header row, a code block with the sentence that leads
into it, and a numbered list item with the extent of its list (a procedure is quoted whole).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from grounding.evidence import EvidenceItem, EvidencePacket
from grounding.generators.segmentation import Unit, UnitKind, markup_for, split_units
from grounding.generators.terms import CJK, terms
from retrieval.text.markup import NUMBERED_MARKER

# Set by hand, not fit: a prose unit with fewer words is a label ("Example:"), not an answer.
_MIN_WORDS = 4
_HEADER_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One answer unit of one evidence item."""

    item: EvidenceItem
    item_index: int
    unit_index: int
    unit: Unit
    units: tuple[Unit, ...]  # all units of the item's chunk, for neighbours
    terms: Counter[str]
    context: frozenset[str]  # terms of the unit's headings (and a row's table header)
    headings: str  # the headings' text, for semantic similarity
    lead_in: frozenset[str] = frozenset()  # code: terms of the sentence that introduces it
    steps: tuple[int, int] | None = None  # a numbered item: its list's extent (with lead-in)


def candidates(packet: EvidencePacket) -> tuple[Candidate, ...]:
    out: list[Candidate] = []
    heading_terms: dict[str, frozenset[str]] = {}  # a chunk has only a few distinct headings
    for item_index, item in enumerate(packet.items):
        units = split_units(item.chunk.text, markup_for(item.chunk.path))
        steps = _numbered_lists(units, item.chunk.text)
        for unit_index, unit in enumerate(units):
            if not claimable(unit):
                continue
            header = _table_header(units, item.chunk.text, unit_index)
            headings = " ".join(dict.fromkeys((*item.chunk.heading_path, unit.section, header)))
            if headings not in heading_terms:
                heading_terms[headings] = frozenset(terms(headings))
            out.append(
                Candidate(
                    item,
                    item_index,
                    unit_index,
                    unit,
                    units,
                    Counter(terms(unit.text)),
                    heading_terms[headings],
                    headings,
                    _lead_in_terms(units, item.chunk.text, unit_index),
                    steps.get(unit_index),
                )
            )
    return tuple(out)


def claimable(unit: Unit) -> bool:
    """Headings, bare names and link-only lines say too little to be an answer on their own."""
    if unit.kind is UnitKind.CODE:
        return True
    if unit.kind is UnitKind.HEADING:
        return False
    prose = re.sub(r"\]\([^)]*\)|https?://\S+", " ", unit.text)
    cjk = len(CJK.findall(prose))  # CJK is written without spaces: a word is about two characters
    words = len(re.findall(r"[^\W\d_]{2,}", CJK.sub(" ", prose)))
    return words + cjk / 2 >= _MIN_WORDS


def _table_header(units: Sequence[Unit], text: str, index: int) -> str:
    """The header row of the Markdown table a row belongs to ('' for the header itself)."""
    if units[index].kind is not UnitKind.ROW:
        return ""
    first = index
    while first > 0 and units[first - 1].kind is UnitKind.ROW:
        between = text[units[first - 1].end : units[first].start]
        if any(line.strip() and not _HEADER_RULE.match(line) for line in between.splitlines()):
            break
        first -= 1
    if first == index:
        return ""
    rule = text[units[first].end : units[first + 1].start]
    return units[first].text if _HEADER_RULE.search(rule.strip()) else ""


def _lead_in_terms(units: Sequence[Unit], text: str, index: int) -> frozenset[str]:
    """For a code block, the terms of the sentence right before it."""
    if units[index].kind is not UnitKind.CODE or index == 0:
        return frozenset()
    before = units[index - 1]
    if before.kind is not UnitKind.SENTENCE or text[before.end : units[index].start].strip():
        return frozenset()
    return frozenset(terms(before.text))


def _numbered_lists(units: Sequence[Unit], text: str) -> dict[int, tuple[int, int]]:
    """Each item of a numbered list -> the list's extent, its lead-in sentence included."""
    out: dict[int, tuple[int, int]] = {}
    i = 0
    while i < len(units):
        if units[i].kind is not UnitKind.ITEM or not NUMBERED_MARKER.match(units[i].text):
            i += 1
            continue
        last = i
        while last + 1 < len(units) and adjacent(units, text, last, UnitKind.ITEM):
            last += 1
        if last > i:
            first = i - 1 if i > 0 and leads_in(units, text, i - 1) else i
            out.update((k, (first, last)) for k in range(i, last + 1))
        i = last + 1
    return out


def adjacent(units: Sequence[Unit], text: str, i: int, kind: UnitKind) -> bool:
    """Unit `i + 1` is of `kind` and only whitespace separates it from unit `i`."""
    nxt = units[i + 1]
    return nxt.kind is kind and not text[units[i].end : nxt.start].strip()


def leads_in(units: Sequence[Unit], text: str, i: int) -> bool:
    """A sentence ending in a colon (or an ellipsis) right before the next unit."""
    unit = units[i]
    ends = unit.text.rstrip().endswith((":", "...", "…"))
    nxt = units[i + 1] if i + 1 < len(units) else None
    return (
        nxt is not None
        and unit.kind is UnitKind.SENTENCE
        and ends
        and not text[unit.end : nxt.start].strip()
    )
