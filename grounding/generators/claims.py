"""Claims from the reader's chosen units: each a verbatim passage of one evidence item.

A chosen unit brings its companions: code keeps the sentence that leads into it, a sentence
ending in a colon keeps the code or list it introduces, a step of a numbered list brings the
whole list for a how-to question. Neighbouring chosen units of one chunk join into one passage.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from grounding.generators.segmentation import Unit, UnitKind
from grounding.generators.units import Candidate, claimable
from retrieval.text import normalize_text
from retrieval.text.markup import LIST_MARKER

# Set by hand, not fit: a list quoted whole for a how-to question stops here (a long reference
# list is not a how-to; twelve steps still fit in one Slack reply).
_MAX_LIST_UNITS = 12


@dataclass(frozen=True, slots=True)
class Ranked:
    candidate: Candidate
    probability: float  # the ranker's, over the packet's units: that this one holds the answer


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive units of one chunk that make one claim."""

    candidate: Candidate  # the unit that earned the claim
    first: int  # unit indexes into candidate.units, inclusive
    last: int

    def touches(self, other: Candidate) -> bool:
        same = other.item_index == self.candidate.item_index
        return same and self.first - 1 <= other.unit_index <= self.last + 1

    def extended(self, other: Candidate) -> Span:
        first, last = min(self.first, other.unit_index), max(self.last, other.unit_index)
        return Span(self.candidate, first, last)


def select_spans(
    ranked: Sequence[Ranked], howto: bool, max_claims: int, extra_ratio: float
) -> tuple[Span, ...]:
    """The best unit and, only when nearly as likely, a few more; neighbours merge into one."""
    if not ranked:
        return ()
    best = ranked[0]
    spans = [_with_companions(best.candidate, howto)]
    for other in ranked[1:]:
        if other.probability < extra_ratio * best.probability:
            break
        c = other.candidate
        if any(_covers(s, c) for s in spans):
            continue
        touching = next((i for i, s in enumerate(spans) if s.touches(c) and _joinable(s, c)), None)
        if touching is not None:
            spans[touching] = spans[touching].extended(c)
        elif len(spans) < max_claims:
            _add(spans, _with_companions(c, howto))
    return tuple(spans)


def _add(spans: list[Span], new: Span) -> None:
    """Append `new`, or widen the span it overlaps so no text is quoted twice."""
    for i, span in enumerate(spans):
        same = span.candidate.item_index == new.candidate.item_index
        if same and new.first <= span.last and span.first <= new.last:
            spans[i] = Span(span.candidate, min(span.first, new.first), max(span.last, new.last))
            return
    spans.append(new)


def _covers(span: Span, c: Candidate) -> bool:
    same = c.item_index == span.candidate.item_index
    return same and span.first <= c.unit_index <= span.last


def _joinable(span: Span, c: Candidate) -> bool:
    """Only whitespace between them: the joined claim is still a verbatim passage."""
    units = span.candidate.units
    lo, hi = min(span.last, c.unit_index), max(span.first, c.unit_index)
    gap = span.candidate.item.chunk.text[units[lo].end : units[hi].start]
    return not gap.strip() and c.unit.kind is not UnitKind.HEADING


def _with_companions(c: Candidate, howto: bool) -> Span:
    """A sentence that introduces a code block or list, or answers "how" next to code, keeps it."""
    span = Span(c, c.unit_index, c.unit_index)
    if c.unit.kind is UnitKind.CODE:
        # Code keeps the sentence that says what it is for.
        return Span(c, c.unit_index - 1, c.unit_index) if c.lead_in else span
    if c.steps is not None and howto:
        # One step of a procedure does not answer "how do I": quote the steps whole.
        first, last = c.steps
        return Span(c, first, min(last, max(first + _MAX_LIST_UNITS - 1, c.unit_index)))
    following = list(_following(c, limit=_MAX_LIST_UNITS if howto else 4))
    if c.unit.text.rstrip().endswith((":", "...", "…")) and following:
        if following[0].kind is UnitKind.CODE:
            return Span(c, c.unit_index, c.unit_index + 1)
        items = 0
        while items < len(following) and following[items].kind is UnitKind.ITEM:
            items += 1
        return Span(c, c.unit_index, c.unit_index + items) if items else span
    if howto:
        # The code that shows how sits right after its prose, at most one sentence apart.
        for offset, unit in enumerate(following[:2], start=1):
            if unit.kind is UnitKind.CODE:
                return Span(c, c.unit_index, c.unit_index + offset)
    return span


def _following(c: Candidate, limit: int) -> Iterable[Unit]:
    """The units right after `c` in its section, while only whitespace separates them."""
    text, previous = c.item.chunk.text, c.unit
    for unit in c.units[c.unit_index + 1 : c.unit_index + 1 + limit]:
        if unit.kind is UnitKind.HEADING or text[previous.end : unit.start].strip():
            return
        yield unit
        previous = unit


def clean(unit: Unit, alone: bool = True) -> str:
    """The unit without edge markup (bullets, table pipes, quote marks), whitespace collapsed.

    A list item keeps its bullet unless it is quoted `alone`: between two items the bullet is
    what keeps the passage verbatim.
    """
    match unit.kind:
        case UnitKind.CODE:
            return textwrap.dedent(unit.text).strip("\n")
        case UnitKind.ITEM:
            text = LIST_MARKER.sub("", unit.text) if alone else unit.text
            return " ".join(text.split())
        case UnitKind.ROW:
            return " ".join(unit.text.strip().strip("|").split())
        case _:
            return " ".join(re.sub(r"^(?:\s*>)+", "", unit.text).split())


def claim_texts(span: Span) -> tuple[str, ...]:
    """The span's claims: its prose as one, each code block as its own, in document order.

    A code block stands alone so that the prose it illustrates is verified, kept or dropped on
    its own: one unsupported token in a long block must not take the explanation with it. Prose
    too short to be an answer unit (a label such as "Usage example:") is left out.
    """
    units = span.candidate.units[span.first : span.last + 1]
    groups: list[list[Unit]] = []
    for unit in units:
        if unit.kind is UnitKind.CODE or not groups or groups[-1][-1].kind is UnitKind.CODE:
            groups.append([unit])
        else:
            groups[-1].append(unit)
    # A lead-in that is only a label ("For example::") says nothing its code does not.
    said = [g for g in groups if any(claimable(u) for u in g)]
    return tuple(_passage(group, span.candidate.item.chunk.text) for group in said)


def _passage(units: Sequence[Unit], source: str) -> str:
    """Cleaned parts when they still read verbatim in the evidence, else the raw passage."""
    alone = len(units) == 1
    text = clean(units[0], alone)
    for previous, unit in itertools.pairwise(units):
        block = {previous.kind, unit.kind} - {UnitKind.SENTENCE}
        text += ("\n" if block else " ") + clean(unit, alone)
    if normalize_text(text) in normalize_text(source):
        return text
    return source[units[0].start : units[-1].end]
