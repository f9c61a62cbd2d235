"""An item's blocks: the paragraphs, headings, list items, table rows and code lines a sentence
cannot run across, and the number a numbered list item opens with. Quotes are matched in them
(quotes.py) and numbered lists are read from them (numbered_lists.py)."""

from __future__ import annotations

import re

from retrieval.text.markup import ATX_HEADING, FENCE, LIST_MARKER

# Where a block starts besides a blank line: a heading, a list item, a table row, a quote.
_BLOCK_START = re.compile(rf"{LIST_MARKER.pattern}|{ATX_HEADING.pattern}|^\s*[|>]")
# A numbered list item's number: "3." or "3)" at its first line's start, or reST's "#.".
ITEM_NUMBER = re.compile(r"^[ \t]*(\d{1,3}|#(?=\.))[.)][ \t]+")


def blocks(text: str) -> list[tuple[str, bool]]:
    """Paragraphs, headings, list items, table rows and code lines: the pieces of an item that a
    sentence cannot run across, each with whether it is a line of code. Fence lines are
    dropped: they hold no words of the document."""
    out: list[tuple[list[str], bool]] = []
    in_code = False
    for line in text.splitlines():
        if FENCE.match(line):
            in_code = not in_code
            out.append(([], in_code))
            continue
        starts = in_code or not line.strip() or _BLOCK_START.match(line) is not None
        if starts or not out:
            out.append(([], in_code))
        if line.strip():
            out[-1][0].append(line)
    return [("\n".join(lines), code) for lines, code in out if lines]
