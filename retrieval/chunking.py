"""Splitting one document into chunks that follow its headings, each with its exact line range.

Parsers turn lines into headings and blocks (a block is never split); the packer fills chunks
with whole blocks under a token budget, and never starts a new chunk in the middle of a section's
heading lines; then short sections are merged with their neighbours. Line indexes here are
0-based; chunks carry 1-based inclusive line numbers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.text.markup import ATX_HEADING, FENCE, fence_end
from retrieval.tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class Heading:
    start: int
    end: int  # the underline, for setext and reST headings
    level: int
    title: str


@dataclass(frozen=True, slots=True)
class Block:
    """Lines that stay together; a block with `parts` may be split between them if too big."""

    start: int
    end: int
    weak: bool = False  # labels and index entries: they belong to what follows them
    parts: tuple[Block, ...] = ()


Item = Heading | Block


def chunk_document(
    collection: str,
    path: str,
    text: str,
    updated: str,
    counter: TokenCounter,
    max_tokens: int,
    min_tokens: int | None = None,
) -> tuple[Chunk, ...]:
    """Chunks of `text` (line breaks already "\\n"), in document order.

    A section smaller than `min_tokens` (default: a quarter of `max_tokens`) is merged with the
    sections next to it while the result stays within `max_tokens`; see `merge_short_spans`.
    """
    lines = text.split("\n")
    packer = _Packer(lines, counter, max_tokens)
    for item in parse_document(path, lines):
        packer.add(item)
    floor = max_tokens // 4 if min_tokens is None else min_tokens
    spans = merge_short_spans(packer.finish(), floor, max_tokens)
    return _chunks(collection, path, updated, lines, spans)


def parse_document(path: str, lines: Sequence[str]) -> tuple[Item, ...]:
    """Dispatch on the extension; a `.txt` that looks like reStructuredText is parsed as such."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in {".md", ".markdown"}:
        return markdown_items(lines)
    if suffix == ".rst" or (suffix == ".txt" and looks_like_rest(lines)):
        return rest_items(lines, 0, len(lines), titles=True)
    return plain_items(lines)


# --- packing ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    heading_path: tuple[str, ...]
    tokens: int = 0
    section: int = 0  # the section whose content it holds: one number per heading, in order


@dataclass(slots=True)
class _Packer:
    lines: Sequence[str]
    counter: TokenCounter
    max_tokens: int
    spans: list[_Span] = field(default_factory=list)
    stack: list[Heading] = field(default_factory=list)
    pending: tuple[int, int] | None = None  # (first line, tokens) of headings and labels
    open: tuple[int, int, int] | None = None  # (start, end, tokens) of the chunk being filled
    section: int = 0

    def add(self, item: Item) -> None:
        if isinstance(item, Heading):
            self._close()
            self.section += 1
            while self.stack and self.stack[-1].level >= item.level:
                self.stack.pop()
            self.stack.append(item)
            self._hold(item.start, item.end)
        elif item.weak:
            self._close()
            self._hold(item.start, item.end)
        else:
            self._content(item, self._tokens(item.start, item.end))

    def finish(self) -> list[_Span]:
        self._close()  # headings still pending have no content: they are dropped
        return self.spans

    def _hold(self, start: int, end: int) -> None:
        tokens = self._tokens(start, end)
        if self.pending is None:
            self.pending = (start, tokens)
        else:
            self.pending = (self.pending[0], self.pending[1] + 1 + tokens)

    def _content(self, block: Block, tokens: int) -> None:
        if self.open is not None and self.open[2] + 1 + tokens <= self.max_tokens:
            self.open = (self.open[0], block.end, self.open[2] + 1 + tokens)
            return
        self._close()
        if block.parts and tokens > self.max_tokens:
            for part in block.parts:
                self._content(part, self._tokens(part.start, part.end))
            return
        start, extra = (block.start, 0) if self.pending is None else self.pending
        self.pending = None
        self.open = (start, block.end, extra + (1 if extra else 0) + tokens)

    def _close(self) -> None:
        if self.open is not None:
            path = tuple(heading.title for heading in self.stack)
            self.spans.append(_Span(self.open[0], self.open[1], path, self.open[2], self.section))
            self.open = None

    def _tokens(self, start: int, end: int) -> int:
        return self.counter.count("\n".join(self.lines[start : end + 1]))


def merge_short_spans(spans: Sequence[_Span], min_tokens: int, max_tokens: int) -> list[_Span]:
    """Merge short sections with their neighbours, so no chunk is a 30-token sliver.

    Runbooks and FAQs are full of short sections; as separate chunks they waste the evidence
    budget and the per-file limit of the packet. A group of spans smaller than `min_tokens`
    takes the following spans while the total fits `max_tokens` and each one is a sibling or
    a descendant of the group's first section (so a group never climbs above its first
    section's parent); a group still short afterwards joins the previous group on the same
    terms. A merged chunk's heading path is the deepest path its spans share, so its citation
    names the enclosing section. Spans of a section too big for one chunk never merge with
    another section: they are that section's continuation.
    """
    section_tokens: dict[int, int] = {}
    for span in spans:
        section_tokens[span.section] = section_tokens.get(span.section, 0) + span.tokens
    whole = [section_tokens[span.section] <= max_tokens for span in spans]
    groups: list[list[int]] = []  # indexes into spans
    for i in range(len(spans)):
        group = groups[-1] if groups else None
        if (
            group is not None
            and _fits(spans, group, i, whole, max_tokens)
            and (_size(spans, group) < min_tokens)
        ):
            group.append(i)
        else:
            groups.append([i])
    merged: list[list[int]] = []
    for group in groups:
        last = merged[-1] if merged else None
        if (
            last is not None
            and _size(spans, group) < min_tokens
            and all(_fits(spans, last, i, whole, max_tokens) for i in group)
            and _size(spans, last) + 1 + _size(spans, group) <= max_tokens
        ):
            last.extend(group)
        else:
            merged.append(group)
    return [_joined(spans, group) for group in merged]


def _size(spans: Sequence[_Span], group: Sequence[int]) -> int:
    """Tokens of the group's text: one more for each join, as the packer counts."""
    return sum(spans[i].tokens for i in group) + len(group) - 1


def _fits(
    spans: Sequence[_Span], group: Sequence[int], i: int, whole: Sequence[bool], max_tokens: int
) -> bool:
    """Whether span `i` may join `group`: both whole sections, `i` under the first's parent."""
    if not (whole[i] and all(whole[j] for j in group)):
        return False
    parent = spans[group[0]].heading_path[:-1]
    if spans[i].heading_path[: len(parent)] != parent:
        return False
    return _size(spans, group) + 1 + spans[i].tokens <= max_tokens


def _joined(spans: Sequence[_Span], group: Sequence[int]) -> _Span:
    first, last = spans[group[0]], spans[group[-1]]
    if len(group) == 1:
        return first
    path = first.heading_path
    for i in group[1:]:
        other = spans[i].heading_path
        common = 0
        while common < min(len(path), len(other)) and path[common] == other[common]:
            common += 1
        path = path[:common]
    return _Span(first.start, last.end, path, _size(spans, group), first.section)


def _chunks(
    collection: str, path: str, updated: str, lines: Sequence[str], spans: Sequence[_Span]
) -> tuple[Chunk, ...]:
    seen: dict[str, int] = {}
    chunks = []
    for span in spans:
        text = "\n".join(lines[span.start : span.end + 1])
        digest = text_digest(text)
        occurrence = seen.get(digest, 0)
        seen[digest] = occurrence + 1
        chunk_id = make_chunk_id(collection, path, digest, occurrence)
        chunks.append(
            Chunk(
                chunk_id, collection, path, span.heading_path,
                span.start + 1, span.end + 1, text, digest, updated,
            )
        )  # fmt: skip
    return tuple(chunks)


# --- shared line helpers ---------------------------------------------------------------------

_LIST_MARKER = re.compile(r"^(\s*(?:[-*+•]|\(?(?:[0-9]{1,3}|[A-Za-z#])[.)])[ \t]+)")


def _blank(line: str) -> bool:
    return not line.strip()


def _indent(line: str) -> int:
    body = line.lstrip()
    prefix = line[: len(line) - len(body)]
    return len(prefix.expandtabs(8)) if "\t" in prefix else len(prefix)


def _paragraph(lines: Sequence[str], i: int, end: int) -> Block:
    """A paragraph; a list without blank lines between its items may split between items."""
    marker = _LIST_MARKER.match(lines[i])
    if marker is None or end == i:
        return Block(i, end)
    indent = _indent(lines[i])
    starts = [i] + [
        k
        for k in range(i + 1, end + 1)
        if _indent(lines[k]) == indent and _LIST_MARKER.match(lines[k])
    ]
    if len(starts) < 2:
        return Block(i, end)
    ends = [k - 1 for k in starts[1:]] + [end]
    return Block(i, end, parts=tuple(Block(a, b) for a, b in zip(starts, ends, strict=True)))


def _paragraph_end(lines: Sequence[str], i: int, hi: int) -> int:
    while i + 1 < hi and not _blank(lines[i + 1]):
        i += 1
    return i


def _indented_end(lines: Sequence[str], i: int, hi: int, indent: int) -> int:
    """The last non-blank line of the run after `i` indented deeper than `indent` (else `i`)."""
    last, k = i, i + 1
    while k < hi:
        line = lines[k]
        if not _blank(line):
            if _indent(line) <= indent:
                break
            last = k
        k += 1
    return last


def _last_content(lines: Sequence[str], lo: int, hi: int) -> int:
    k = hi - 1
    while k > lo and _blank(lines[k]):
        k -= 1
    return k


def plain_items(lines: Sequence[str]) -> tuple[Item, ...]:
    """Plain text: paragraphs separated by blank lines, no headings."""
    items: list[Item] = []
    i = 0
    while i < len(lines):
        if _blank(lines[i]):
            i += 1
            continue
        block = _paragraph(lines, i, _paragraph_end(lines, i, len(lines)))
        items.append(block)
        i = block.end + 1
    return tuple(items)


# --- Markdown --------------------------------------------------------------------------------

_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# Lines whose indented followers are their content, not an indented code block.
_CONTAINER = re.compile(r"^\s*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|!!!|\?\?\?|=== \"|>)")


def markdown_items(lines: Sequence[str]) -> tuple[Item, ...]:
    items: list[Item] = []
    n = len(lines)
    i = _front_matter_end(lines)
    in_container = False
    while i < n:
        line = lines[i]
        if _blank(line):
            i += 1
            continue
        item = _markdown_item(lines, i, in_container)
        if isinstance(item, Heading):
            in_container = False
        elif _CONTAINER.match(line):
            in_container = True
        elif _indent(line) == 0 and not FENCE.match(line):
            in_container = False
        items.append(item)
        i = item.end + 1
    return tuple(items)


def _markdown_item(lines: Sequence[str], i: int, in_container: bool) -> Item:
    line = lines[i]
    fence = FENCE.match(line)
    if fence:
        return Block(i, fence_end(lines, i, fence.group(1)))
    atx = ATX_HEADING.match(line)
    if atx:
        return Heading(i, i, len(atx.group(1)), (atx.group(2) or "").strip())
    if _indent(line) >= 4 and not in_container:
        return Block(i, _indented_end(lines, i, len(lines), 3))
    j = i
    while j + 1 < len(lines):
        following = lines[j + 1]
        if _blank(following) or FENCE.match(following) or ATX_HEADING.match(following):
            break
        setext = _SETEXT.match(following)
        if setext and not _CONTAINER.match(lines[i]):
            title = " ".join(lines[k].strip() for k in range(i, j + 1))
            return Heading(i, j + 1, 1 if setext.group(1)[0] == "=" else 2, title)
        j += 1
    return _paragraph(lines, i, j)


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


# --- reStructuredText ------------------------------------------------------------------------

_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1+[ \t]*$")
_SIMPLE_TABLE_BORDER = re.compile(r"^\s*=+(?: +=+)+\s*$")
_EXPLICIT = re.compile(r"^\s*\.\.(?:\s|$)")
_DIRECTIVE = re.compile(r"^\s*\.\.[ \t]+([\w.+:-]+?)::(?:\s|$)")
_LABEL = re.compile(r"^\s*\.\.[ \t]+_[^:]*(?:\\:[^:]*)*:\s*$")
_REST_SIGNS = re.compile(r"^(?:\.\.[ \t]+[\w.+:-]+::|\.\.[ \t]+_|([=\-~^\"'`#*+.:_])\1{3,}[ \t]*$)")
# fmt: off
# Directives whose body is code, data or a table: never split.
_WHOLE_DIRECTIVES = frozenset({
    "code", "code-block", "sourcecode", "literalinclude", "doctest", "testcode", "testoutput",
    "testsetup", "testcleanup", "console", "math", "csv-table", "list-table", "table",
    "productionlist", "parsed-literal", "raw", "graphviz", "toctree", "ipython", "jupyter-execute",
})
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
        if _blank(lines[i]):
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
    if _EXPLICIT.match(line):
        return _explicit_block(lines, i, hi)
    if _SIMPLE_TABLE_BORDER.match(line):
        return Block(i, _simple_table_end(lines, i, hi))
    end = _paragraph_end(lines, i, hi)
    if not lines[end].rstrip().endswith("::"):
        return _paragraph(lines, i, end)
    indent = _content_indent(lines[end]) if end == i else _indent(lines[end])
    return Block(i, _indented_end(lines, end, hi, indent))


def _simple_table_end(lines: Sequence[str], i: int, hi: int) -> int:
    """A simple table may hold blank lines; it ends at a border followed by a blank line."""
    for k in range(i + 1, hi):
        if _SIMPLE_TABLE_BORDER.match(lines[k]) and (k + 1 >= hi or _blank(lines[k + 1])):
            return k
    return _paragraph_end(lines, i, hi)


def _content_indent(line: str) -> int:
    """Where a list item's text starts; literal blocks are indented relative to that."""
    marker = _LIST_MARKER.match(line)
    return len(marker.group(1).expandtabs(8)) if marker else _indent(line)


def _explicit_block(lines: Sequence[str], i: int, hi: int) -> Block:
    line = lines[i]
    end = _indented_end(lines, i, hi, _indent(line))
    if _LABEL.match(line) and end == i:
        return Block(i, end, weak=True)
    directive = _DIRECTIVE.match(line)
    if directive is None:
        return Block(i, end)  # comment, footnote, citation, link target, substitution
    name = directive.group(1).lower()
    if name in _LEADING_DIRECTIVES:
        return Block(i, end, weak=True)
    if name in _WHOLE_DIRECTIVES or name.endswith(("code-block", "table")) or end == i:
        return Block(i, end)
    return Block(i, end, parts=_directive_parts(lines, i, end))


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
