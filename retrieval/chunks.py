"""The chunk: the unit that is indexed, retrieved, packed as evidence and cited."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, fields
from operator import attrgetter

from retrieval.text import normalize_text


@dataclass(frozen=True, slots=True)
class Chunk:
    chunk_id: str
    collection: str
    path: str  # relative to the collection root, with forward slashes
    heading_path: tuple[str, ...]
    start_line: int  # 1-based, inclusive, lines of the original file
    end_line: int
    text: str
    digest: str  # sha256 of the normalized text
    updated: str  # ISO date of the file's last change

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""

    def __reduce__(self) -> tuple[type[Chunk], tuple[object, ...]]:
        # Pickled as constructor arguments: the frozen-slots default (a __setstate__ calling
        # dataclasses.fields per object) was most of loading an index (1.15 s of 1.4 s at
        # 100k chunks). Field order is the constructor's, so a new field is pickled too.
        return Chunk, _chunk_arguments(self)


# attrgetter builds the tuple in C: a generator of getattr calls was most of pickling a snapshot.
_chunk_arguments = attrgetter(*(field.name for field in fields(Chunk)))


def text_digest(text: str) -> str:
    """sha256 of the normalized text: two chunks with the same words have the same digest."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()


def make_chunk_id(collection: str, path: str, digest: str, occurrence: int) -> str:
    """Stable while the text is unchanged: lines may move, the id does not.

    `occurrence` tells apart identical texts within one file (0 for the first).
    """
    key = f"{collection}\0{path}\0{digest}\0{occurrence}".encode()
    return hashlib.sha256(key).hexdigest()[:20]


@dataclass(frozen=True, slots=True)
class Hit:
    """A chunk that a search inside one scope returned."""

    chunk: Chunk
    score: float
    rank: int  # 1-based


def first_headings(chunks: Iterable[Chunk]) -> tuple[str, ...]:
    """The distinct top-level headings of `chunks`, in their order (blank ones skipped)."""
    found: dict[str, None] = {}
    for chunk in chunks:
        if chunk.heading_path and chunk.heading_path[0].strip():
            found.setdefault(chunk.heading_path[0])
    return tuple(found)
