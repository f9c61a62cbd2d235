"""How long the numbered list a quote is in is: a claim may count it ("takes three steps" of
items "1." to "3."), even where a chunk boundary cuts the list and the packet holds the chunk
of the same file that goes on with it."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from grounding.evidence import EvidenceItem
from grounding.verification.blocks import ITEM_NUMBER, blocks
from retrieval.text.markup import BULLET


def list_length(
    numbered: Sequence[tuple[int, int, int]],
    start: int,
    end: int,
    item: EvidenceItem,
    packet: Sequence[EvidenceItem],
) -> int:
    """The number of items of the numbered list that a quote at `start`-`end` is in: the run of
    items numbered 1, 2, 3, ... around it, one after the other, continued by the items of the
    packet next to `item` in its file when the run is cut by the item's edge; 0 when it is in
    none."""
    runs: list[list[tuple[int, int, int]]] = []
    for entry in numbered:
        if runs and entry[2] == runs[-1][-1][2] + 1:
            runs[-1].append(entry)
        else:
            runs.append([entry])
    for run in runs:
        if any(a < end and start < b for a, b, _ in run):
            first, last = _across_items(run[0][2], run[-1][2], item, packet)
            return last if first == 1 else 0
    return 0


def _across_items(
    first: int, last: int, item: EvidenceItem, packet: Sequence[EvidenceItem]
) -> tuple[int, int]:
    """The numbers a run `first`..`last` of `item` spans once the packet's chunks right before
    and after it in the same file are read: a chunk boundary cuts a list where the item ends on
    its "3." and the next chunk opens on "4." (explicit numbers only: "#." items give none)."""
    here = item.chunk
    nearby = [
        i.chunk
        for i in packet
        if (i.chunk.collection, i.chunk.path) == (here.collection, here.path)
    ]
    opens, closes = _edges(here.text)
    low, high = first, last
    chunk = here
    while opens == (first, last) and low > 1:
        before = next((c for c in nearby if 0 <= chunk.start_line - c.end_line <= _GAP), None)
        closed = _edges(before.text)[1] if before is not None else None
        if before is None or closed is None or closed[1] != low - 1:
            break
        low, chunk = closed[0], before
        if _edges(before.text)[0] != closed:
            break  # the list starts inside the chunk before
    chunk = here
    while closes == (first, last):
        after = next((c for c in nearby if 0 <= c.start_line - chunk.end_line <= _GAP), None)
        opened = _edges(after.text)[0] if after is not None else None
        if after is None or opened is None or opened[0] != high + 1:
            break
        high, chunk = opened[1], after
        if _edges(after.text)[1] != opened:
            break  # the list ends inside the chunk after
    return low, high


_BULLET = re.compile(rf"[ \t]*{BULLET}[ \t]")
# Lines between two chunks of a file that part no list: the blank lines a chunker may leave out.
_GAP = 2


@functools.lru_cache(maxsize=256)
def _edges(text: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """The (first, last) numbers of the run of numbered items `text` opens with and of the one
    it ends with, each None unless the text's first or last block (indented ones, code and
    bullets aside: an item's own paragraphs) is a numbered item."""
    marks: list[int | None] = []
    for block, in_code in blocks(text):
        marker = ITEM_NUMBER.match(block)
        if marker is not None and marker.group(1) != "#":
            marks.append(int(marker.group(1)))
        elif not in_code and not block[:1].isspace() and not _BULLET.match(block):
            marks.append(None)
    return _run(marks), _run(marks[::-1], reverse=True)


def _run(marks: Sequence[int | None], *, reverse: bool = False) -> tuple[int, int] | None:
    """The numbers of the run the marks open with, one after the other."""
    if not marks or marks[0] is None:
        return None
    step = -1 if reverse else 1
    end = marks[0]
    for mark in marks[1:]:
        if mark != end + step:
            break
        end = mark
    return (end, marks[0]) if reverse else (marks[0], end)
