"""Splitting one document into chunks that follow its headings, each with its exact line range.

The format scanners (`markdown_blocks`, `rest_blocks`, `blocks`) turn lines into headings
and blocks; `packing` fills chunks with them under the token budget, cutting a block too big
for one chunk (`splitting`), and merges short sections. Chunks carry 1-based inclusive line
numbers of the original file; a piece of one long line has that line as its first and last.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from retrieval.blocks import Item, plain_items
from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.markdown_blocks import markdown_items
from retrieval.packing import Span, merge_short_spans, pack_items
from retrieval.rest_blocks import looks_like_rest, rest_items
from retrieval.splitting import piece_text
from retrieval.tokens import TokenCounter


def chunk_document(
    collection: str,
    path: str,
    text: str,
    updated: str,
    counter: TokenCounter,
    max_tokens: int,
    min_tokens: int | None = None,
) -> tuple[Chunk, ...]:
    """Chunks of `text` (line breaks already "\\n"), in document order, each within
    `max_tokens` as `counter` counts them.

    A section smaller than `min_tokens` (default: a quarter of `max_tokens`) is merged with the
    sections next to it while the result stays within `max_tokens`; see `merge_short_spans`.
    """
    lines = text.split("\n")
    spans = pack_items(lines, parse_document(path, lines), counter, max_tokens)
    floor = max_tokens // 4 if min_tokens is None else min_tokens
    return _chunks(collection, path, updated, lines, merge_short_spans(spans, floor, max_tokens))


def parse_document(path: str, lines: Sequence[str]) -> tuple[Item, ...]:
    """Dispatch on the extension; a `.txt` that looks like reStructuredText is parsed as such."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in {".md", ".markdown"}:
        return markdown_items(lines)
    if suffix == ".rst" or (suffix == ".txt" and looks_like_rest(lines)):
        return rest_items(lines, 0, len(lines), titles=True)
    return plain_items(lines)


def _chunks(
    collection: str, path: str, updated: str, lines: Sequence[str], spans: Sequence[Span]
) -> tuple[Chunk, ...]:
    seen: dict[str, int] = {}
    chunks = []
    for span in spans:
        text = piece_text(lines, span.piece)
        digest = text_digest(text)
        occurrence = seen.get(digest, 0)
        seen[digest] = occurrence + 1
        chunk_id = make_chunk_id(collection, path, digest, occurrence)
        chunks.append(
            Chunk(
                chunk_id, collection, path, span.heading_path,
                span.piece.start + 1, span.piece.end + 1, text, digest, updated,
            )
        )  # fmt: skip
    return tuple(chunks)
