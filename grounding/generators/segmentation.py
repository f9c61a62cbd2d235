"""Splitting evidence text into answer units: sentences, list items, table rows and code blocks.

Markdown and reST aware; every unit is a verbatim slice of the text it came from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from retrieval.text.markup import (
    ATX_HEADING,
    BULLET,
    FENCE,
    NUMBERED,
    REST_DIRECTIVE,
    REST_EXPLICIT,
    fence_end,
    rest_code_directive,
)
from retrieval.text.sentences import sentence_spans


class UnitKind(StrEnum):
    SENTENCE = "sentence"
    ITEM = "item"  # a list item, with its continuation lines
    ROW = "row"  # a table row
    CODE = "code"  # a fenced, indented or literal block, always whole
    HEADING = "heading"  # context for the units below it, never a claim


class Markup(StrEnum):
    MARKDOWN = "markdown"
    REST = "rest"  # reStructuredText; also used for .txt, where its rules rarely misfire


@dataclass(frozen=True, slots=True)
class Unit:
    kind: UnitKind
    start: int  # character offsets into the source text
    end: int
    text: str  # source[start:end]
    section: str  # the nearest heading above it inside the source ('' if none)


def markup_for(path: str) -> Markup:
    return Markup.MARKDOWN if path.lower().endswith((".md", ".markdown")) else Markup.REST


_UNDERLINE = re.compile(r"^([=\-~^\"'*+#`:.])\1{2,}\s*$")
# A list item, or a reST field (`:param x:`), read as one.
_ITEM = re.compile(rf"^\s*(?:{BULLET}|{NUMBERED}|:[^:\s][^:]*:)\s+\S")
# A code directive is one code unit, a literalinclude too (its options say where its code is).
# sphinx.ext.doctest's blocks are not taken here: their body is read as any indented text is, as
# the reader's weights were fit on (retrieval.text.markup, where the verifier takes them).
_CODE_DIRECTIVE = rest_code_directive(doctest=False, include=True)
_TABLE_BORDER = re.compile(r"^\s*[+|]?[-=:+| ]{3,}[+|]?\s*$")
_HTML = re.compile(r"^\s*</?[A-Za-z!][^>]*>\s*$")


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int  # without the newline
    text: str

    @property
    def blank(self) -> bool:
        return not self.text.strip()

    @property
    def indent(self) -> int:
        return len(self.text) - len(self.text.lstrip(" \t"))


def _lines(text: str) -> list[_Line]:
    lines, offset = [], 0
    for raw in text.splitlines(keepends=True):
        body = raw.rstrip("\r\n")
        lines.append(_Line(offset, offset + len(body), body))
        offset += len(raw)
    return lines


def split_units(text: str, markup: Markup) -> tuple[Unit, ...]:
    """Every unit of `text` in document order; prose paragraphs are split into sentences."""
    return tuple(_Splitter(text, markup).units())


class _Splitter:
    """One pass over the lines; each `_take_*` consumes a block and returns the next line index."""

    def __init__(self, text: str, markup: Markup) -> None:
        self.text = text
        self.markup = markup
        self.lines = _lines(text)
        self.section = ""
        self.out: list[Unit] = []

    def units(self) -> list[Unit]:
        i = 0
        literal_next = False  # the previous paragraph ended with `::` (reST literal block)
        while i < len(self.lines):
            line = self.lines[i]
            if line.blank:
                i += 1
                continue
            if literal_next and self._is_indented_block(i):
                i = self._take_indented(i, line.indent)
            else:
                i, literal_next = self._take_block(i)
                continue
            literal_next = False
        return self.out

    def _take_block(self, i: int) -> tuple[int, bool]:
        line, nxt = self.lines[i], self._next(i)
        fence = FENCE.match(line.text)
        if fence:
            return self._take_fence(i, fence.group(1)), False
        if self.markup is Markup.REST and _CODE_DIRECTIVE.match(line.text):
            return self._take_directive_code(i), False
        if ATX_HEADING.match(line.text):
            return self._take_heading(i, i, line.text.strip().strip("#").strip()), False
        if (
            nxt is not None
            and _UNDERLINE.match(nxt.text)
            and len(nxt.text.strip()) >= len(line.text.strip())
        ):
            return self._take_heading(i, i + 1, line.text.strip()), False
        if _UNDERLINE.match(line.text) or _TABLE_BORDER.match(line.text) or _HTML.match(line.text):
            return i + 1, False  # overlines, table borders and raw HTML are layout, not content
        rest = self.markup is Markup.REST
        if rest and (REST_DIRECTIVE.match(line.text) or REST_EXPLICIT.match(line.text)):
            # `.. note::` introduces prose, which is read as normal paragraphs below it.
            return i + 1, False
        if line.text.lstrip().startswith("|") and line.text.rstrip().endswith("|"):
            return self._take_row(i), False
        if _ITEM.match(line.text):
            return self._take_item(i), False
        if not rest and line.indent >= 4 and self._after_blank(i) and not self._in_list():
            return self._take_indented(i, 4), False
        return self._take_paragraph(i)

    def _next(self, i: int) -> _Line | None:
        return self.lines[i + 1] if i + 1 < len(self.lines) else None

    def _in_list(self) -> bool:
        # An indented paragraph right after a list item continues the item; it is not code.
        return bool(self.out) and self.out[-1].kind is UnitKind.ITEM

    def _after_blank(self, i: int) -> bool:
        return i == 0 or self.lines[i - 1].blank

    def _is_indented_block(self, i: int) -> bool:
        return self.lines[i].indent > 0

    def _emit(self, kind: UnitKind, start: int, end: int) -> None:
        raw = self.text[start:end]
        # A code block keeps its first line's indentation, so that it can be dedented whole.
        head = raw.lstrip("\n") if kind is UnitKind.CODE else raw.lstrip()
        body = head.rstrip()
        if body.strip():
            start += len(raw) - len(head)
            self.out.append(Unit(kind, start, start + len(body), body, self.section))

    def _take_fence(self, i: int, opening: str) -> int:
        last = fence_end([line.text for line in self.lines], i, opening)
        self._emit(UnitKind.CODE, self.lines[i].start, self.lines[last].end)
        return last + 1

    def _take_directive_code(self, i: int) -> int:
        j = i + 1
        while j < len(self.lines) and (self.lines[j].blank or self.lines[j].indent > 0):
            j += 1
        last = self._last_nonblank(i, j)
        self._emit(UnitKind.CODE, self.lines[i].start, self.lines[last].end)
        return j

    def _take_indented(self, i: int, min_indent: int) -> int:
        j = i
        while j < len(self.lines) and (self.lines[j].blank or self.lines[j].indent >= min_indent):
            j += 1
        last = self._last_nonblank(i, j)
        self._emit(UnitKind.CODE, self.lines[i].start, self.lines[last].end)
        return j

    def _last_nonblank(self, i: int, j: int) -> int:
        last = j - 1
        while last > i and self.lines[last].blank:
            last -= 1
        return last

    def _take_heading(self, i: int, last: int, title: str) -> int:
        self.section = title
        self._emit(UnitKind.HEADING, self.lines[i].start, self.lines[last].end)
        return last + 1

    def _take_row(self, i: int) -> int:
        line = self.lines[i]
        if not _TABLE_BORDER.match(line.text):
            self._emit(UnitKind.ROW, line.start, line.end)
        return i + 1

    def _take_item(self, i: int) -> int:
        j = i + 1
        while j < len(self.lines) and self._continues(j):
            j += 1
        self._emit(UnitKind.ITEM, self.lines[i].start, self.lines[j - 1].end)
        return j

    def _continues(self, j: int) -> bool:
        """Whether line `j` belongs to the paragraph or item above it."""
        text = self.lines[j].text
        return not (
            self.lines[j].blank
            or _ITEM.match(text)
            or FENCE.match(text)
            or ATX_HEADING.match(text)
            or _UNDERLINE.match(text)
            or (self.markup is Markup.REST and REST_DIRECTIVE.match(text))
        )

    def _take_paragraph(self, i: int) -> tuple[int, bool]:
        j = i + 1
        while j < len(self.lines) and self._continues(j):
            nxt = self._next(j)
            if nxt is not None and _UNDERLINE.match(nxt.text):
                break  # line j is the title of a reST heading
            j += 1
        start, end = self.lines[i].start, self.lines[j - 1].end
        for s, e in sentence_spans(self.text[start:end]):
            self._emit(UnitKind.SENTENCE, start + s, start + e)
        literal = self.markup is Markup.REST and self.lines[j - 1].text.rstrip().endswith("::")
        return j, literal
