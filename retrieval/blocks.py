"""What the format scanners find in a document: headings and blocks, with the line helpers
they share, and plain text's paragraphs. Line indexes are 0-based.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int  # the underline, for setext and reST headings
    level: int
    title: str


class BlockKind(StrEnum):
    """How a block too big for one chunk is cut (see `retrieval.splitting`)."""

    PROSE = "prose"  # at lines ending a sentence, then sentences, words, characters of a line
    TABLE = "table"  # between rows, its header repeated above each later part
    CODE = "code"  # between lines, each part still a fenced, literal or directive block


@dataclass(frozen=True, slots=True)
class Block:
    """Lines that stay together while they fit a chunk.

    A block with `parts` splits between them first. A block too big on its own is cut into
    pieces by its `kind`: `body` is the first and last line the pieces divide (the lines above
    it go with the first piece, those below with the last); lines `lead_from` up to the body
    are repeated above every later piece and the lines below the body under every earlier one,
    so a piece of a table keeps its header and a piece of code stays a well-formed block.
    `cuts`, when given, are the only body lines a piece may start at (the rows of a table).
    """

    start: int
    end: int
    weak: bool = False  # labels and index entries: they belong to what follows them
    parts: tuple[Block, ...] = ()
    kind: BlockKind = BlockKind.PROSE
    body: tuple[int, int] | None = None  # None: the whole block, nothing repeated
    lead_from: int | None = None
    cuts: tuple[int, ...] = ()


Item = Heading | Block

# Where a list item starts, for the chunker: wider than `retrieval.text.markup.LIST_MARKER`
# (letters and "#" too, "a)" "B."), since a wrong guess here only moves a cut between items.
ITEM_MARKER = re.compile(r"^(\s*(?:[-*+•]|\(?(?:[0-9]{1,3}|[A-Za-z#])[.)])[ \t]+)")


def blank(line: str) -> bool:
    return not line.strip()


def indent(line: str) -> int:
    body = line.lstrip()
    prefix = line[: len(line) - len(body)]
    return len(prefix.expandtabs(8)) if "\t" in prefix else len(prefix)


def paragraph(lines: Sequence[str], i: int, end: int) -> Block:
    """A paragraph; a list without blank lines between its items may split between items."""
    marker = ITEM_MARKER.match(lines[i])
    if marker is None or end == i:
        return Block(i, end)
    depth = indent(lines[i])
    starts = [i] + [
        k
        for k in range(i + 1, end + 1)
        if indent(lines[k]) == depth and ITEM_MARKER.match(lines[k])
    ]
    if len(starts) < 2:
        return Block(i, end)
    ends = [k - 1 for k in starts[1:]] + [end]
    return Block(i, end, parts=tuple(Block(a, b) for a, b in zip(starts, ends, strict=True)))


def paragraph_end(lines: Sequence[str], i: int, hi: int) -> int:
    while i + 1 < hi and not blank(lines[i + 1]):
        i += 1
    return i


def indented_end(lines: Sequence[str], i: int, hi: int, depth: int) -> int:
    """The last non-blank line of the run after `i` indented deeper than `depth` (else `i`)."""
    last, k = i, i + 1
    while k < hi:
        line = lines[k]
        if not blank(line):
            if indent(line) <= depth:
                break
            last = k
        k += 1
    return last


def last_content(lines: Sequence[str], lo: int, hi: int) -> int:
    k = hi - 1
    while k > lo and blank(lines[k]):
        k -= 1
    return k


def next_content(lines: Sequence[str], lo: int, hi: int) -> int | None:
    """The first non-blank line in `lines[lo:hi]`, if any."""
    for k in range(lo, hi):
        if not blank(lines[k]):
            return k
    return None


def plain_items(lines: Sequence[str]) -> tuple[Item, ...]:
    """Plain text: paragraphs separated by blank lines, no headings."""
    items: list[Item] = []
    i = 0
    while i < len(lines):
        if blank(lines[i]):
            i += 1
            continue
        block = paragraph(lines, i, paragraph_end(lines, i, len(lines)))
        items.append(block)
        i = block.end + 1
    return tuple(items)
