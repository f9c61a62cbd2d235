"""An item's blocks: the paragraphs, headings, list items, table rows and code lines a sentence
cannot run across, and the number a numbered list item opens with. Quotes are matched in them
(quotes.py) and numbered lists are read from them (numbered_lists.py)."""

from __future__ import annotations

import re

from retrieval.blocks import indent
from retrieval.text.markup import ATX_HEADING, FENCE, LIST_MARKER, rest_code_directive

# Where a block starts besides a blank line: a heading, a list item, a table row, a quote, a
# field line ("PEP: 20", "Created: 19-Aug-2004": a header's lines are one field each, so a
# quote of one is not read with the numbers of the others).
_BLOCK_START = re.compile(
    rf"{LIST_MARKER.pattern}|{ATX_HEADING.pattern}|^\s*[|>]|^[A-Z][\w-]{{0,30}}:[ \t]+\S"
)
# A numbered list item's number: "3." or "3)" at its first line's start, or reST's "#.".
ITEM_NUMBER = re.compile(r"^[ \t]*(\d{1,3}|#(?=\.))[.)][ \t]+")
# What opens a reST literal block: a paragraph ending in "::" or a code directive. The indented
# lines after it are code, one block a line like a fenced block's: the output line a quote
# gives ("10000 loops, best of 5: 23.2 usec per loop") is not read with the other lines'
# numbers ("30.2 usec").
# A directive's body (".. note::") is prose: only the code directives open one.
# sphinx.ext.doctest's blocks are code lines too; a literalinclude has no code in the document.
_CODE_DIRECTIVE = rest_code_directive(doctest=True, include=False)
_LITERAL_OPENER = re.compile(
    rf"^(?!\s*\.\.[ \t]+[\w-]+::).*\S::[ \t]*$|^\s*::[ \t]*$|{_CODE_DIRECTIVE.pattern}"
)


def blocks(text: str) -> list[tuple[str, bool]]:
    """Paragraphs, headings, list items, table rows and code lines: the pieces of an item that a
    sentence cannot run across, each with whether it is a line of code. Fence lines are
    dropped: they hold no words of the document."""
    out: list[tuple[list[str], bool]] = []
    in_code = False
    literal: int | None = None  # the opener's indent while in a reST literal block
    opened: int | None = None  # the indent of a line that opened one, until its body starts
    for line in text.splitlines():
        if FENCE.match(line):
            in_code = not in_code
            out.append(([], in_code))
            continue
        if line.strip() and not in_code:
            if literal is not None and indent(line) <= literal:
                literal = None
            if opened is not None and not _LITERAL_OPENER.search(line):
                literal, opened = (opened, None) if indent(line) > opened else (None, None)
        code = in_code or literal is not None
        after_code = bool(out) and out[-1][1] and not code  # the line a literal block ends at
        starts = code or after_code or not line.strip() or _BLOCK_START.match(line) is not None
        if starts or not out:
            out.append(([], code))
        if line.strip():
            if not out[-1][0]:  # a blank line's block is code when its first line is
                out[-1] = ([], code)
            out[-1][0].append(line)
            if not code and _LITERAL_OPENER.search(line):
                opened = indent(out[-1][0][0])
    return [("\n".join(lines), code) for lines, code in out if lines]
