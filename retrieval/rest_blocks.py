"""reStructuredText's headings and blocks: section titles, explicit markup (directives, labels,
comments), literal blocks, simple and grid tables, lists and paragraphs."""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.blocks import (
    ITEM_MARKER,
    Block,
    BlockKind,
    Heading,
    Item,
    blank,
    indent,
    indented_end,
    next_content,
    paragraph,
    paragraph_end,
)
from retrieval.text.markup import (
    REST_CODE_DIRECTIVES,
    REST_DIRECTIVE,
    REST_DOCTEST_DIRECTIVES,
    REST_EXPLICIT,
    REST_INCLUDE_DIRECTIVES,
)

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_SIMPLE_TABLE_BORDER = re.compile(r"^\s*=+(?: +=+)+\s*$")
_GRID_BORDER = re.compile(r"^\s*\+(?:[-=:]+\+)+\s*$")
_GRID_HEADER_BORDER = re.compile(r"^\s*\+(?:=+\+)+\s*$")
_LABEL = re.compile(r"^\s*\.\.[ \t]+_[^:]*(?:\\:[^:]*)*:\s*$")
_REST_SIGNS = re.compile(r"^(?:\.\.[ \t]+[\w.+:-]+::|\.\.[ \t]+_|([=\-~^\"'`#*+.:_])\1{3,}[ \t]*$)")
_HEADER_ROWS = re.compile(r"^\s*:header-rows:\s*(\d+)\s*$")
# fmt: off
# Directives whose body is code, data or a table: kept whole while it fits a chunk.
_WHOLE_DIRECTIVES = REST_CODE_DIRECTIVES | REST_DOCTEST_DIRECTIVES | REST_INCLUDE_DIRECTIVES | {
    "testsetup", "testcleanup", "console", "math", "csv-table", "list-table", "table",
    "productionlist", "parsed-literal", "raw", "graphviz", "toctree", "ipython", "jupyter-execute",
}
# Directives that annotate what follows them rather than hold content of their own.
_LEADING_DIRECTIVES = frozenset({
    "index", "highlight", "currentmodule", "module", "sectionauthor", "moduleauthor", "meta",
    "default-role", "py:currentmodule", "py:module",
})
# fmt: on


def looks_like_rest(lines: Sequence[str]) -> bool:
    return any(_REST_SIGNS.match(line) for line in lines)


def rest_items(lines: Sequence[str], lo: int, hi: int, titles: bool) -> tuple[Item, ...]:
    """Headings and blocks of `lines[lo:hi]`; `titles` is off inside directive bodies.

    Heading levels follow the order in which adornment styles first appear, as in docutils.
    """
    styles: list[tuple[str, bool]] = []
    items: list[Item] = []
    i = lo
    while i < hi:
        if blank(lines[i]):
            i += 1
            continue
        found = _rest_heading(lines, i, hi) if titles else None
        if found is not None:
            end, style, title = found
            if style not in styles:
                styles.append(style)
            items.append(Heading(i, end, styles.index(style) + 1, title))
            i = end + 1
            continue
        block = _rest_block(lines, i, hi)
        items.append(block)
        i = block.end + 1
    return tuple(items)


def _rest_heading(
    lines: Sequence[str], i: int, hi: int
) -> tuple[int, tuple[str, bool], str] | None:
    """`(last line, (adornment char, has overline), title)` if a section title starts at `i`."""
    line = lines[i].rstrip()
    if i + 1 >= hi:
        return None
    over = _ADORNMENT.match(line)
    if over and i + 2 < hi:
        title, under = lines[i + 1].strip(), lines[i + 2].rstrip()
        if title and not _ADORNMENT.match(title) and under == line:
            return i + 2, (line[0], True), title
        return None
    under_match = _ADORNMENT.match(lines[i + 1].rstrip())
    if over or not under_match or line[:1].isspace():
        return None
    underline = under_match.group(0).rstrip()
    # docutils: an underline shorter than its title still counts once it is 4 characters long.
    if len(underline) < len(line) and len(underline) < 4:
        return None
    return i + 1, (underline[0], False), line.strip()


def _rest_block(lines: Sequence[str], i: int, hi: int) -> Block:
    line = lines[i]
    if REST_EXPLICIT.match(line):
        return _explicit_block(lines, i, hi)
    if _SIMPLE_TABLE_BORDER.match(line):
        return _simple_table(lines, i, _simple_table_end(lines, i, hi))
    end = paragraph_end(lines, i, hi)
    if _GRID_BORDER.match(line):
        return _grid_table(lines, i, end)
    if not lines[end].rstrip().endswith("::"):
        return paragraph(lines, i, end)
    depth = _content_indent(lines[end]) if end == i else indent(lines[end])
    last = indented_end(lines, end, hi, depth)
    first = next_content(lines, end + 1, last + 1)
    if first is None:
        return paragraph(lines, i, end)
    # Later pieces of the literal block repeat the line that introduces it (it ends with "::").
    return Block(i, last, kind=BlockKind.CODE, body=(first, last), lead_from=end)


def _simple_table_end(lines: Sequence[str], i: int, hi: int) -> int:
    """A simple table may hold blank lines; it ends at a border followed by a blank line."""
    for k in range(i + 1, hi):
        if _SIMPLE_TABLE_BORDER.match(lines[k]) and (k + 1 >= hi or blank(lines[k + 1])):
            return k
    return paragraph_end(lines, i, hi)


def _simple_table(lines: Sequence[str], i: int, end: int) -> Block:
    """Pieces repeat the top border and header rows above, and the bottom border below."""
    borders = [k for k in range(i, end + 1) if _SIMPLE_TABLE_BORDER.match(lines[k])]
    first = borders[1] + 1 if len(borders) >= 3 else i + 1
    last = end - 1 if borders[-1] == end else end
    column = indent(lines[i])
    # A row's continuation lines leave the first column blank.
    rows = tuple(
        k
        for k in range(first, last + 1)
        if len(lines[k]) > column and not lines[k][column].isspace()
    )
    if first > last or not rows:
        return Block(i, end, kind=BlockKind.TABLE)
    return Block(i, end, kind=BlockKind.TABLE, body=(rows[0], last), lead_from=i, cuts=rows)


def _grid_table(lines: Sequence[str], i: int, end: int) -> Block:
    """Pieces start after a row's border; the header (or the top border) is repeated."""
    header = next((k for k in range(i + 1, end) if _GRID_HEADER_BORDER.match(lines[k])), i)
    rows = tuple(k for k in range(header + 1, end + 1) if _GRID_BORDER.match(lines[k - 1]))
    if not rows:
        return Block(i, end, kind=BlockKind.TABLE)
    return Block(i, end, kind=BlockKind.TABLE, body=(rows[0], end), lead_from=i, cuts=rows)


def _content_indent(line: str) -> int:
    """Where a list item's text starts; literal blocks are indented relative to that."""
    marker = ITEM_MARKER.match(line)
    return len(marker.group(1).expandtabs(8)) if marker else indent(line)


def _explicit_block(lines: Sequence[str], i: int, hi: int) -> Block:
    line = lines[i]
    end = indented_end(lines, i, hi, indent(line))
    if _LABEL.match(line) and end == i:
        return Block(i, end, weak=True)
    directive = REST_DIRECTIVE.match(line)
    if directive is None:
        return Block(i, end)  # comment, footnote, citation, link target, substitution
    name = directive.group(1).lower()
    if name in _LEADING_DIRECTIVES:
        return Block(i, end, weak=True)
    if name in _WHOLE_DIRECTIVES or name.endswith(("code-block", "table")):
        return _whole_directive(lines, i, end, name)
    if end == i:
        return Block(i, end)
    return Block(i, end, parts=_directive_parts(lines, i, end))


def _whole_directive(lines: Sequence[str], i: int, end: int, name: str) -> Block:
    """Code, data or a table under a directive; each piece repeats the directive and options."""
    head_end = next((k for k in range(i + 1, end + 1) if blank(lines[k])), end)
    first = next_content(lines, head_end + 1, end + 1)
    if first is None:
        return Block(i, end, kind=BlockKind.CODE)
    if name in {"list-table", "csv-table"}:
        rows = _table_rows(lines, first, end, name)[_header_rows(lines, i, head_end) :]
    elif name.endswith("table"):  # `.. table::` and its kin hold a simple or grid table
        inner = _rest_block(lines, first, end + 1)
        if inner.kind is BlockKind.TABLE and inner.body is not None:
            return Block(
                i, end, kind=BlockKind.TABLE, body=inner.body, lead_from=i, cuts=inner.cuts
            )
        rows = ()
    else:
        return Block(i, end, kind=BlockKind.CODE, body=(first, end), lead_from=i)
    if not rows:
        return Block(i, end, kind=BlockKind.TABLE)
    # The header rows join the directive in the lines every piece repeats.
    return Block(i, end, kind=BlockKind.TABLE, body=(rows[0], end), lead_from=i, cuts=rows)


def _header_rows(lines: Sequence[str], i: int, head_end: int) -> int:
    for k in range(i + 1, head_end + 1):
        match = _HEADER_ROWS.match(lines[k])
        if match:
            return int(match.group(1))
    return 0


def _table_rows(lines: Sequence[str], first: int, end: int, name: str) -> tuple[int, ...]:
    """Where the rows of a list-table (its top-level items) or a csv-table (its lines) start."""
    if name == "csv-table":
        return tuple(k for k in range(first, end + 1) if not blank(lines[k]))
    depth = indent(lines[first])
    return tuple(
        k
        for k in range(first, end + 1)
        if indent(lines[k]) == depth and lines[k].lstrip()[:2] in {"* ", "- "}
    )


def _directive_parts(lines: Sequence[str], i: int, end: int) -> tuple[Block, ...]:
    """A container directive (note, function, ...) splits between its body's blocks.

    Its first line and any options or argument lines right under it stay with the first
    paragraph of the body, so no part is only a directive line.
    """
    body = [item for item in rest_items(lines, i + 1, end + 1, titles=False)]
    head_end = body[0].end if body else i
    rest = body[1:]
    if body and body[0].start == i + 1 and rest:
        head_end, rest = rest[0].end, rest[1:]
    head = Block(i, head_end)
    return (head, *(b if isinstance(b, Block) else Block(b.start, b.end) for b in rest))
