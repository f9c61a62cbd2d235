"""Markdown's headings and blocks: ATX and setext headings, fenced and indented code, pipe
tables, lists and paragraphs, with front matter skipped."""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.blocks import (
    Block,
    BlockKind,
    Heading,
    Item,
    blank,
    indent,
    indented_end,
    paragraph,
)
from retrieval.text.markup import ATX_HEADING, FENCE, fence_closing, fence_end

_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Lines whose indented followers are their content, not an indented code block.
_CONTAINER = re.compile(r"^\s*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|!!!|\?\?\?|=== \"|>)")
# The delimiter row under a pipe table's header: `|---|:---:|`, `--- | ---`.
_TABLE_DELIMITER = re.compile(r"^\s*\|?(?:\s*:?-+:?\s*\|)+\s*(?::?-+:?\s*)?$")


def markdown_items(lines: Sequence[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    n = len(lines)
    i = _front_matter_end(lines)
    in_container = False
    while i < n:
        line = lines[i]
        if blank(line):
            i += 1
            continue
        item = _markdown_item(lines, i, in_container)
        if isinstance(item, Heading):
            in_container = False
        elif _CONTAINER.match(line):
            in_container = True
        elif indent(line) == 0 and not FENCE.match(line):
            in_container = False
        items.append(item)
        i = item.end + 1
    return tuple(items)


def _markdown_item(lines: Sequence[str], i: int, in_container: bool) -> Item:
    line = lines[i]
    fence = FENCE.match(line)
    if fence:
        return fence_block(lines, i, fence.group(1))
    atx = ATX_HEADING.match(line)
    if atx:
        return Heading(i, i, len(atx.group(1)), (atx.group(2) or "").strip())
    if indent(line) >= 4 and not in_container:
        return Block(i, indented_end(lines, i, len(lines), 3), kind=BlockKind.CODE)
    j = i
    while j + 1 < len(lines):
        following = lines[j + 1]
        if blank(following) or FENCE.match(following) or ATX_HEADING.match(following):
            break
        setext = _SETEXT.match(following)
        if setext and not _CONTAINER.match(lines[i]):
            title = " ".join(lines[k].strip() for k in range(i, j + 1))
            return Heading(i, j + 1, 1 if setext.group(1)[0] == "=" else 2, title)
        j += 1
    if j >= i + 2 and "|" in line and _TABLE_DELIMITER.match(lines[i + 1]):
        # Any row may start a piece; the header row and the delimiter row lead each one.
        return Block(i, j, kind=BlockKind.TABLE, body=(i + 2, j), lead_from=i)
    return paragraph(lines, i, j)


def fence_block(lines: Sequence[str], i: int, opening: str) -> Block:
    """A fenced code block; its pieces repeat the opening fence and the closing one."""
    end = fence_end(lines, i, opening)
    closed = end > i and fence_closing(opening).match(lines[end]) is not None
    last = end - 1 if closed else end
    if last < i + 1:
        return Block(i, end, kind=BlockKind.CODE)
    return Block(i, end, kind=BlockKind.CODE, body=(i + 1, last), lead_from=i)


def _front_matter_end(lines: Sequence[str]) -> int:
    """Front matter (YAML `---` ... `---`, TOML `+++` ... `+++`) is metadata, not content."""
    fence = lines[0].rstrip() if lines else ""
    if fence not in {"---", "+++"}:
        return 0
    closing = {"---", "..."} if fence == "---" else {"+++"}
    for k in range(1, len(lines)):
        if lines[k].rstrip() in closing:
            return k + 1
    return 0
