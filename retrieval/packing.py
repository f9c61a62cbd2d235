"""Filling chunks with a document's blocks under the token budget, then merging short sections.

Blocks go into chunks whole while they fit; a chunk never starts in the middle of a section's
heading lines. A block too big for a chunk is split between its parts, or else cut into pieces
by `retrieval.splitting`, so every chunk fits the budget. Line indexes are 0-based.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from retrieval.blocks import Block, Heading, Item
from retrieval.splitting import Piece, piece_text, split_block
from retrieval.tokens import TokenCounter

# Token counts of joined text are estimated as the sum of the parts' counts plus one per line
# break; a chunk estimated within this many tokens of the budget has its text counted.
_SLACK = 8
_RETRIES = 3


@dataclass(frozen=True, slots=True)
class Span:
    """The text of one chunk (see `Piece`), its headings and the section it belongs to."""

    piece: Piece
    heading_path: tuple[str, ...]
    section: int = 0  # the section whose content it holds: one number per heading, in order
    split: bool = False  # a piece of a block cut to fit: it never merges with other sections

    @property
    def tokens(self) -> int:
        return self.piece.tokens


def pack_items(
    lines: Sequence[str], items: Sequence[Item], counter: TokenCounter, max_tokens: int
) -> list[Span]:
    packer = _Packer(lines, counter, max_tokens)
    for item in items:
        packer.add(item)
    return packer.finish()


@dataclass(slots=True)
class _Packer:
    lines: Sequence[str]
    counter: TokenCounter
    max_tokens: int
    spans: list[Span] = field(default_factory=list)
    stack: list[Heading] = field(default_factory=list)
    pending: tuple[int, int, int] | None = None  # (first, last line, tokens) of headings, labels
    open: Piece | None = None  # the chunk being filled
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
            self._content(item)

    def finish(self) -> list[Span]:
        self._close()  # headings still pending have no content: they are dropped
        return self.spans

    def _hold(self, start: int, end: int) -> None:
        tokens = self._tokens(start, end)
        if self.pending is None:
            self.pending = (start, end, tokens)
        else:
            self.pending = (self.pending[0], end, self.pending[2] + 1 + tokens)

    def _content(self, block: Block) -> None:
        tokens = self._tokens(block.start, block.end)
        if self.open is not None:
            grown = self._fitting(
                replace(self.open, end=block.end, tokens=self.open.tokens + 1 + tokens)
            )
            if grown is not None:
                self.open = grown
                return
        self._close()
        if self.pending is not None and self.pending[2] > self.max_tokens // 2:
            # Headings or labels this long would crowd out their content: they go first, alone.
            start, end, _ = self.pending
            self.pending = None
            self._content(Block(start, end))
            self._content(block)
            return
        held = None
        if self.pending is not None:
            held, self.pending = Piece(self.pending[0], self.pending[1], self.pending[2]), None
        extra = held.tokens + 1 if held is not None else 0
        start = held.start if held is not None else block.start
        whole = self._fitting(Piece(start, block.end, extra + tokens))
        if whole is not None:
            self.open = whole
        elif block.parts:
            self.pending = None if held is None else (held.start, held.end, held.tokens)
            for part in block.parts:
                self._content(part)
        else:
            self._split(block, held)

    def _split(self, block: Block, before: Piece | None) -> None:
        """Cut `block` into pieces; the first one also holds `before`, the headings above."""
        room = self.max_tokens - (before.tokens + 1 if before is not None else 0)
        for _ in range(_RETRIES):
            pieces = list(split_block(self.lines, block, self.counter, self.max_tokens, room))
            if before is None:
                break
            # The headings above go with the first piece, so no chunk is only headings.
            joined = replace(pieces[0], start=before.start)
            pieces[0] = replace(joined, tokens=self.counter.count(piece_text(self.lines, joined)))
            if pieces[0].tokens <= self.max_tokens:
                break
            room -= pieces[0].tokens - self.max_tokens  # the join counted more than its parts
        # Each piece is a chunk of its own: what follows the block starts a new one, as it did
        # when the block was one chunk, so only the chunks of blocks over the budget change.
        self.spans.extend(Span(piece, self._path(), self.section, split=True) for piece in pieces)

    def _fitting(self, piece: Piece) -> Piece | None:
        """`piece` if it fits the budget; near the budget its text is counted, not estimated."""
        if piece.tokens > self.max_tokens:
            return None
        if piece.tokens <= self.max_tokens - _SLACK:
            return piece
        exact = replace(piece, tokens=self.counter.count(piece_text(self.lines, piece)))
        return exact if exact.tokens <= self.max_tokens else None

    def _close(self) -> None:
        if self.open is not None:
            self.spans.append(Span(self.open, self._path(), self.section))
            self.open = None

    def _path(self) -> tuple[str, ...]:
        return tuple(heading.title for heading in self.stack)

    def _tokens(self, start: int, end: int) -> int:
        return self.counter.count("\n".join(self.lines[start : end + 1]))


def merge_short_spans(spans: Sequence[Span], min_tokens: int, max_tokens: int) -> list[Span]:
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
    cut: set[int] = set()
    for span in spans:
        section_tokens[span.section] = section_tokens.get(span.section, 0) + span.tokens
        if span.split:
            cut.add(span.section)
    whole = [
        section_tokens[span.section] <= max_tokens and span.section not in cut for span in spans
    ]
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


def _size(spans: Sequence[Span], group: Sequence[int]) -> int:
    """Tokens of the group's text: one more for each join, as the packer counts."""
    return sum(spans[i].tokens for i in group) + len(group) - 1


def _fits(
    spans: Sequence[Span], group: Sequence[int], i: int, whole: Sequence[bool], max_tokens: int
) -> bool:
    """Whether span `i` may join `group`: both whole sections, `i` under the first's parent."""
    if not (whole[i] and all(whole[j] for j in group)):
        return False
    parent = spans[group[0]].heading_path[:-1]
    if spans[i].heading_path[: len(parent)] != parent:
        return False
    return _size(spans, group) + 1 + spans[i].tokens <= max_tokens


def _joined(spans: Sequence[Span], group: Sequence[int]) -> Span:
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
    piece = Piece(first.piece.start, last.piece.end, _size(spans, group))
    return Span(piece, path, first.section)
