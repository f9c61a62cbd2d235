"""Cutting one block too big for a chunk into pieces that each fit, by what the block is.

Prose is cut where a paragraph or a sentence ends, inside a line too, else between lines; a
sentence too long for a piece is cut between words, then characters. A table is cut between
rows and every later piece repeats its header; code is cut between lines (preferably at a
blank line) and each piece repeats the opening fence or directive above it and the closing
fence below it, so every piece is still a well-formed block. A piece's own text is always one
contiguous slice of the document: the repeated lines are the only text not at its own lines.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from retrieval.blocks import Block, BlockKind, blank, indent
from retrieval.text.sentences import sentence_spans
from retrieval.tokens import TokenCounter

# A line ending like this ends a sentence (or a clause that introduces what follows).
_SENTENCE_END = re.compile(r"[.!?:;…。！？][\"')\]*_»”’]*\s*$")
_WORD = re.compile(r"\S+")
# Repeated lines may take at most this share of a piece; past it they are not repeated.
_MAX_REPEATED_SHARE = 0.5
# A cut may come this much before the even share of what is left, to land at a better place.
_EARLY_CUT = 0.7


@dataclass(frozen=True, slots=True)
class Piece:
    """Lines `start` (from column `first_col`) to `end` (up to `last_col`, None: the whole
    line), with `lead` lines repeated above them and `trail` lines below; `tokens` counts
    the text as assembled by `piece_text`."""

    start: int
    end: int
    tokens: int
    lead: tuple[str, ...] = ()
    trail: tuple[str, ...] = ()
    first_col: int = 0
    last_col: int | None = None


def piece_text(lines: Sequence[str], piece: Piece) -> str:
    own = list(lines[piece.start : piece.end + 1])
    if piece.last_col is not None:
        own[-1] = own[-1][: piece.last_col]
    own[0] = own[0][piece.first_col :]
    return "\n".join((*piece.lead, *own, *piece.trail))


@dataclass(frozen=True, slots=True)
class _Segment:
    """A body line, or a fragment of one too long for a piece; pieces are runs of segments."""

    line: int
    first: int  # columns in the line
    last: int
    tokens: int
    opens: bool  # a piece may start here
    weight: int  # how good a place to start a piece: higher is better


@dataclass(frozen=True, slots=True)
class _Frame:
    """What surrounds the segments of one block: the lines the first piece opens with, the
    last one closes with, and the lead and trail the others repeat, with their token costs."""

    block: Block
    opening: int  # tokens of the lines above the body, with the line break after them
    closing: int
    lead: tuple[str, ...]
    trail: tuple[str, ...]
    lead_tokens: int
    trail_tokens: int


def split_block(
    lines: Sequence[str], block: Block, counter: TokenCounter, room: int, first_room: int
) -> tuple[Piece, ...]:
    """Pieces of `block`, each within `room` tokens; the first within `first_room`."""
    frame = _frame(lines, block, counter)
    # A little under the room, for the line breaks that join a fragment to the lines around it.
    middle = room - frame.lead_tokens - frame.trail_tokens - 2
    first = first_room - frame.opening - frame.trail_tokens - 2
    crowded = block.body is not None and min(middle, 2 * first) < room * _MAX_REPEATED_SHARE
    segments = [] if crowded else _segments(lines, block, counter, middle, min(middle, first))
    if block.body is not None and not segments:
        # The header or fence would crowd out the content: cut the block as plain lines.
        plain = replace(block, body=None, lead_from=None)
        return split_block(lines, plain, counter, room, first_room)
    return tuple(_Cutter(lines, frame, segments, counter, room, first_room).pieces())


def _frame(lines: Sequence[str], block: Block, counter: TokenCounter) -> _Frame:
    if block.body is None:
        return _Frame(block, 0, 0, (), (), 0, 0)
    first, last = block.body
    lead = list(lines[block.lead_from : first]) if block.lead_from is not None else []
    while len(lead) > 1 and blank(lead[-1]) and blank(lead[-2]):
        lead.pop()  # one blank line is enough to part a directive from its body
    trail = tuple(lines[last + 1 : block.end + 1])
    return _Frame(
        block,
        _cost(counter, lines[block.start : first]),
        _cost(counter, lines[last + 1 : block.end + 1]),
        tuple(lead),
        trail,
        _cost(counter, lead),
        _cost(counter, trail),
    )


def _cost(counter: TokenCounter, lines: Sequence[str]) -> int:
    """Tokens of `lines` joined, with the line break that joins them to the rest."""
    return counter.count("\n".join(lines)) + 1 if lines else 0


def _segments(
    lines: Sequence[str], block: Block, counter: TokenCounter, room: int, first_room: int
) -> list[_Segment]:
    """The body's lines (a prose line also split into its sentences); a segment longer than
    `room` (`first_room` for the first) is cut between words, then characters."""
    first, last = block.body if block.body is not None else (block.start, block.end)
    cuts = set(block.cuts)
    prose = block.kind is BlockKind.PROSE
    depth = min(
        (indent(lines[k]) for k in range(first, last + 1) if not blank(lines[k])), default=0
    )
    room, first_room = max(1, room), max(1, first_room)
    segments: list[_Segment] = []
    after_blank = False
    ends_sentence = False
    for k in range(first, last + 1):
        text = lines[k]
        if blank(text):
            after_blank = bool(segments)
            continue
        opens = not cuts or k in cuts
        weight = _weight(prose, after_blank, ends_sentence, indent(text) == depth)
        spans = _sentence_spans(text) if prose else [(0, len(text))]
        spans[0] = (0, spans[0][1])  # a line's first segment keeps its indentation
        for n, (a, b) in enumerate(spans):
            fits = first_room if not segments else room
            for m, (fa, fb, size) in enumerate(_fragments(text, a, b, counter, fits)):
                start_weight = (weight if n == 0 else 2) if m == 0 else 0
                segments.append(_Segment(k, fa, fb, size, opens or n + m > 0, start_weight))
        after_blank = False
        ends_sentence = _SENTENCE_END.search(text) is not None
    return segments


def _weight(prose: bool, after_blank: bool, ends_sentence: bool, outermost: bool) -> int:
    if not prose:
        return 2 * after_blank + outermost
    return 3 if after_blank else 2 if ends_sentence else 1


def _fragments(
    text: str, a: int, b: int, counter: TokenCounter, room: int
) -> list[tuple[int, int, int]]:
    """`(first, last, tokens)`: `text[a:b]` whole if it fits `room`, else cut between words,
    and a word longer than `room` between characters."""
    size = counter.count(text[a:b])
    if size <= room:
        return [(a, b, size)]
    out: list[tuple[int, int, int]] = []
    for wa, wb in _word_spans(text, a, b):
        out.extend(_characters(text, wa, wb, counter, room))
    return out


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for a, b in sentence_spans(text):
        stripped = len(text[a:b]) - len(text[a:b].lstrip())
        if a + stripped < b:
            spans.append((a + stripped, b))
    return spans


def _word_spans(text: str, a: int, b: int) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in _WORD.finditer(text, a, b)]


def _characters(
    text: str, a: int, b: int, counter: TokenCounter, room: int
) -> list[tuple[int, int, int]]:
    """One word as is, or cut into the longest runs of characters that fit `room`."""
    out = []
    while a < b:
        size = counter.count(text[a:b])
        if size <= room:
            out.append((a, b, size))
            break
        low, high = a + 1, b  # the longest end that fits lies in [low, high)
        while low < high - 1:
            middle = (low + high) // 2
            if counter.count(text[a:middle]) <= room:
                low = middle
            else:
                high = middle
        out.append((a, low, counter.count(text[a:low])))
        a = low
    return out


class _Cutter:
    """Groups the segments into pieces: even sizes, cut at the best places, each one fitting."""

    def __init__(
        self,
        lines: Sequence[str],
        frame: _Frame,
        segments: Sequence[_Segment],
        counter: TokenCounter,
        room: int,
        first_room: int,
    ) -> None:
        self.lines, self.frame, self.segments = lines, frame, segments
        self.counter, self.room, self.first_room = counter, room, first_room
        # Running sums, so the cost of any run of segments is a few lookups.
        self._tokens = [0]
        self._same_line = [0]  # joins between two fragments of one line, up to each segment
        for k, segment in enumerate(segments):
            self._tokens.append(self._tokens[-1] + segment.tokens)
            joined = k > 0 and segments[k - 1].line == segment.line
            self._same_line.append(self._same_line[-1] + joined)

    def pieces(self) -> list[Piece]:
        out: list[Piece] = []
        a, n = 0, len(self.segments)
        while a < n:
            first = not out
            room = self.first_room if first else self.room
            limit = room - (self.frame.opening if first else self.frame.lead_tokens)
            if self._cost(a, n) + self.frame.closing <= limit:
                cut = n
            else:
                cut = self._cut(a, limit - self.frame.trail_tokens)
            piece = self._piece(a, cut, first)
            # The estimates add up the parts; the assembled text is what must fit.
            while piece.tokens > room and cut - 1 > a:
                cut = self._earlier(a, cut)
                piece = self._piece(a, cut, first)
            out.append(piece)
            a = cut
        return out

    def _cost(self, a: int, b: int) -> int:
        """Estimated tokens of segments `a..b-1` as one slice of the document."""
        breaks = self.segments[b - 1].line - self.segments[a].line  # blank lines included
        joins = self._same_line[b] - self._same_line[a + 1]
        return self._tokens[b] - self._tokens[a] + breaks + joins

    def _cut(self, a: int, limit: int) -> int:
        """Where the piece starting at segment `a` ends (the next piece's first segment)."""
        fitting: list[tuple[int, int]] = []  # (next start, cost of the piece before it)
        any_fit = a + 1
        for b in range(a + 1, len(self.segments)):
            cost = self._cost(a, b)
            if cost > limit:
                break
            any_fit = b
            if self.segments[b].opens:
                fitting.append((b, cost))
        if not fitting:
            return any_fit  # no row or line boundary fits: cut where the room ends
        remaining = self._cost(a, len(self.segments))
        goal = remaining / math.ceil(remaining / max(1, limit))
        band = [(b, cost) for b, cost in fitting if cost >= _EARLY_CUT * goal] or fitting[-1:]
        return max(band, key=lambda bc: (self.segments[bc[0]].weight, -abs(bc[1] - goal)))[0]

    def _earlier(self, a: int, cut: int) -> int:
        """The cut before `cut`: the previous place a piece may start, else one segment back."""
        for b in range(cut - 1, a, -1):
            if self.segments[b].opens:
                return b
        return cut - 1

    def _piece(self, a: int, b: int, first: bool) -> Piece:
        head, tail = self.segments[a], self.segments[b - 1]
        last = b == len(self.segments)
        block = self.frame.block
        start, first_col = (block.start, 0) if first else (head.line, head.first)
        end = block.end if last else tail.line
        last_col = None if last or tail.last >= len(self.lines[tail.line]) else tail.last
        piece = Piece(
            start,
            end,
            0,
            () if first else self.frame.lead,
            () if last else self.frame.trail,
            first_col,
            last_col,
        )
        return replace(piece, tokens=self.counter.count(piece_text(self.lines, piece)))
