"""What search sees: the collection sets a config can produce and the text of a chunk.

Both sides of search (BM25 and dense vectors) read a chunk through `index_text` and number a
set's chunks in `set_chunks` order, so a position means the same chunk to both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import PurePosixPath

from retrieval.chunks import Chunk
from retrieval.collections import CollectionSnapshot
from retrieval.config import Config


def collection_sets(config: Config) -> tuple[tuple[str, ...], ...]:
    """Every collection set a scope can have under `config` (besides the empty one), sorted."""
    public = [c.name for c in config.collections if c.access == "public"]
    found = {tuple(sorted(public))} if public else set()
    for channel in {ch for c in config.collections for ch in c.channels}:
        private = [c.name for c in config.collections if channel in c.channels]
        found.add(tuple(sorted(public + private)))
    return tuple(sorted(found))


def index_text(chunk: Chunk) -> str:
    """What search sees of a chunk: its file's path (no suffix), its headings and its text."""
    return "\n".join((_searched_path(chunk.path), " / ".join(chunk.heading_path), chunk.text))


@lru_cache(maxsize=8192)
def _searched_path(path: str) -> str:
    """The path without its suffix; cached, since a file's chunks all ask (pathlib is slow)."""
    return str(PurePosixPath(path).with_suffix(""))


def set_chunks(
    snapshots: Mapping[str, CollectionSnapshot], names: Sequence[str]
) -> tuple[Chunk, ...]:
    """The chunks of a set in position order: collections by name, files by path."""
    return tuple(
        chunk
        for name in sorted(names)
        for record in snapshots[name].files
        for chunk in record.chunks
    )
