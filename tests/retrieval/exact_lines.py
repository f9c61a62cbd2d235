"""The line-range guarantee every chunk keeps, checked against the file's own lines."""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.chunks import Chunk

# A piece repeats at most this many lines of its block (a header, a fence, a directive).
MAX_REPEATED = 12


def assert_exact_lines(chunks: Sequence[Chunk], lines: Sequence[str]) -> None:
    """Each chunk's text is the file's lines `start_line..end_line`, or, for a piece of a block
    cut to fit, a slice of them that starts in the first line and ends in the last, with only
    whole lines of the same file (a table's header, a code block's fences) around it."""
    known = set(lines)
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines), chunk
        assert chunk.text.strip() and not chunk.text.startswith("\n"), chunk
        own = lines[chunk.start_line - 1 : chunk.end_line]
        if chunk.text != "\n".join(own):
            assert _is_piece(chunk.text, own, known), chunk


def _is_piece(text: str, own: Sequence[str], known: set[str]) -> bool:
    joined = "\n".join(own)
    starts_by = len(own[0])  # the slice starts within the first line
    ends_from = len(joined) - len(own[-1])  # and ends within the last
    parts = text.split("\n")
    for above in range(min(MAX_REPEATED, len(parts) - 1) + 1):
        for below in range(min(MAX_REPEATED, len(parts) - above - 1) + 1):
            repeated = parts[:above] + parts[len(parts) - below :]
            middle = "\n".join(parts[above : len(parts) - below])
            if not middle.strip() or not all(line in known for line in repeated):
                continue
            at = joined.find(middle)
            while 0 <= at <= starts_by:
                if at + len(middle) >= ends_from:
                    return True
                at = joined.find(middle, at + 1)
    return False
