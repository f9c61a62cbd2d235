"""The bytes of a collection snapshot file: its chunks readable one by one, by position.

A search needs only its hits' chunks, yet unpickling a whole snapshot builds every chunk of
the collection (0.3 s for 70k chunks, most of a cold `docbot search`). So the file is:

    MAGIC | header length, chunk count (2 x u64) | header | offsets ((count + 1) x u64)
          | digests (count x 16 bytes) | sha256 of everything before it | records

The header is the snapshot pickled without its chunks, plus each file's chunk count; record
`i` (bytes `offsets[i]:offsets[i+1]` of the records) is chunk `i`'s constructor arguments
pickled, chunks in `set_chunks` order (files by path). `decode` rebuilds the whole snapshot;
`decode_lazily` (the builder) leaves each file's chunks as stored (`StoredChunks`), built when
read and copied as they are into the next file by `write`. The container (magic, the table's
sha256, each record's blake2b digest, the checks and the words for a damaged file) is
retrieval/record_file.py's: `StoredSnapshot` checks the size and the sha256 of the part before
the records when opened, then decodes a chunk, checking its digest, on first access: damage
anywhere is refused as soon as it is read, and a search hashes only what it reads.
"""

from __future__ import annotations

import bisect
import dataclasses
import io
import itertools
import pickle
import struct
import threading
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, BinaryIO, overload

from retrieval import pickling, record_file
from retrieval.chunks import Chunk
from retrieval.collections import CollectionSnapshot, FileRecord
from retrieval.record_file import BLAKE2B, Layout, RecordFile, RecordFileError, Shape, Span

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_PROTOCOL = pickle.HIGHEST_PROTOCOL


class SnapshotFileError(RecordFileError):
    """The bytes are not a snapshot file this docbot writes, or part of them is damaged."""


def _shape(fields: tuple[int, ...]) -> Shape:
    header_length, count = fields
    return Shape(count=count, meta=header_length, record=None)


LAYOUT = Layout(
    kind=b"docbot-snapshot",
    version=1,
    fields=struct.Struct("<QQ"),  # header length, chunk count
    shape=_shape,
    checksum=BLAKE2B,
    head_damaged="its header or chunk table does not match its checksum",
    record="chunk",
    error=SnapshotFileError,
)
MAGIC = LAYOUT.magic


def write(handle: BinaryIO, snapshot: CollectionSnapshot) -> tuple[int, str]:
    """Write the file to `handle`; its size and sha256. Chunks still held as stored
    (`StoredChunks`: a file a rebuild left alone) are copied as their records and digests, not
    built and pickled again."""
    bare = dataclasses.replace(
        snapshot, files=tuple(dataclasses.replace(r, chunks=()) for r in snapshot.files)
    )
    counts = tuple(len(record.chunks) for record in snapshot.files)
    header = pickling.dumps((bare, counts))
    records: list[ReadableBuffer] = []
    lengths: list[int] = []
    digests: list[ReadableBuffer] = []
    with pickling.collector_paused():
        for file in snapshot.files:
            if isinstance(file.chunks, StoredChunks):
                span = file.chunks.records()
                records.append(span.records)
                lengths += span.lengths or ()
                digests.append(span.checksums)
                continue
            new = [pickle.dumps(chunk.__reduce__()[1], protocol=_PROTOCOL) for chunk in file.chunks]
            records.append(b"".join(new))  # one piece per file, not per chunk, to write
            lengths += map(len, new)
            digests.append(b"".join(map(BLAKE2B.of, new)))
    fields = (len(header), len(lengths))
    return record_file.write(handle, LAYOUT, fields, header, records, digests, lengths)


def encode(snapshot: CollectionSnapshot) -> bytes:
    """The file's bytes (as `write` writes them)."""
    buffer = io.BytesIO()
    write(buffer, snapshot)
    return buffer.getvalue()


def decode(data: ReadableBuffer, where: str, fix: str) -> CollectionSnapshot:
    """The whole snapshot, every chunk built, from bytes the caller has checked against the
    manifest's sha256 (so the per-chunk digests are not checked again); errors: see
    StoredSnapshot."""
    stored = StoredSnapshot(data, where, fix, verified=True)
    chunks = iter(stored.every_chunk())
    files = tuple(
        dataclasses.replace(record, chunks=tuple(next(chunks) for _ in range(count)))
        for record, count in zip(stored.snapshot.files, stored.counts, strict=True)
    )
    return dataclasses.replace(stored.snapshot, files=files)


def decode_lazily(data: ReadableBuffer, where: str, fix: str) -> CollectionSnapshot:
    """The snapshot with each file's chunks as `StoredChunks`, built when first read, from
    bytes checked against the manifest's sha256 (errors: see StoredSnapshot).

    A rebuild reads every previous snapshot but uses the chunks of changed files only: an
    unchanged collection's chunks are never built, and `write` copies an unchanged file's
    records into the collection's next file as they are."""
    stored = StoredSnapshot(data, where, fix, verified=True)
    files = tuple(
        dataclasses.replace(record, chunks=StoredChunks(stored, start, end - start))
        for record, (start, end) in zip(stored.files, stored.spans(), strict=False)
    )
    return dataclasses.replace(stored.snapshot, files=files)


_UNREADABLE = (pickle.UnpicklingError, EOFError, TypeError, ValueError)


class StoredSnapshot:
    """A snapshot file opened for reading chunks by position (thread-safe).

    Damage is refused with SnapshotFileError "`where` is damaged (what): `fix`"
    (retrieval/record_file.py), at opening for the header and chunk table, at a chunk's first
    access for its record.
    """

    def __init__(self, data: ReadableBuffer, where: str, fix: str, *, verified: bool) -> None:
        """`verified`: the whole of `data` matched the manifest's sha256 already, so the
        per-chunk digests need no checking."""
        self._file = RecordFile(data, LAYOUT, where, fix, verified=verified)
        try:
            bare, counts = pickling.loads(bytes(self._file.meta))
        except (*_UNREADABLE, AttributeError, ImportError) as exc:
            raise self._file.damaged(f"its header is unreadable ({exc})") from exc
        if not isinstance(bare, CollectionSnapshot) or sum(counts) != self._file.count:
            raise self._file.damaged("its header is not a collection snapshot's")
        self.snapshot: CollectionSnapshot = bare  # the files' chunks are empty here
        self.counts: tuple[int, ...] = tuple(counts)
        self._built: list[Chunk | None] = [None] * self._file.count
        self._left: int = self._file.count  # chunks not built yet
        self._spans: dict[str, tuple[int, int]] | None = None  # by path, when first needed
        self._lock = threading.Lock()

    @property
    def chunks(self) -> Sequence[Chunk]:
        """The chunks by position, each built when first read. A new view per call, not an
        attribute: a view held here would make a reference cycle, and the file's bytes and
        every built chunk would then outlive their last user until the cyclic collector
        ran (at 100k chunks, ~120 MB per whole read of the three snapshots)."""
        return _Chunks(self)

    @property
    def name(self) -> str:
        return self.snapshot.name

    @property
    def chunk_count(self) -> int:
        return len(self._built)

    @property
    def files(self) -> tuple[FileRecord, ...]:
        """The files, without their chunks (`counts` has how many each has)."""
        return self.snapshot.files

    def spans(self) -> list[tuple[int, int]]:
        """Each file's chunks' first and end positions, in `files` order (from the header: no
        chunk is read)."""
        return list(itertools.pairwise(itertools.accumulate(self.counts, initial=0)))

    def file_span(self, path: str) -> tuple[int, int] | None:
        """The first and end positions of the chunks of the file at `path`, None if there is
        none (from the header: no chunk is read)."""
        with self._lock:
            if self._spans is None:
                self._spans = dict(zip((r.path for r in self.files), self.spans(), strict=False))
            return self._spans.get(path)

    def chunk(self, position: int) -> Chunk:
        found = self._built[position]
        if found is None:
            found = self._decode(position)
            with self._lock:
                built = self._built[position]
                if built is not None:
                    return built  # another thread built it meanwhile
                self._built[position] = found
                self._left -= 1
        return found

    def every_chunk(self) -> list[Chunk]:
        """All the chunks, built in one pass with the garbage collector paused (as a whole
        pickle was read: pickling.py): 0.13 s for 40k chunks, not 0.3 s one by one."""
        return self.chunk_range(0, self.chunk_count)

    def chunk_range(self, start: int, end: int) -> list[Chunk]:
        """The chunks at positions start..end-1, those not built yet built in one pass."""
        with self._lock, pickling.collector_paused():
            built = self._built
            if self._left == 0:
                return built[start:end]  # type: ignore[return-value]  # none is None
            missing = [p for p in range(start, end) if built[p] is None]
            if self._file.verified and len(missing) == end - start:
                # Nothing to check per chunk: one tight loop (most of a builder's read).
                loads = pickle.loads
                try:
                    built[start:end] = [
                        Chunk(*loads(record)) for record in self._file.unchecked(start, end)
                    ]
                except _UNREADABLE as exc:
                    raise self._file.damaged(f"a chunk is unreadable ({exc})") from exc
            else:
                for position in missing:
                    built[position] = self._decode(position)
            self._left -= len(missing)
            return built[start:end]  # type: ignore[return-value]  # none is None any more

    def records(self, start: int, end: int) -> Span:
        """The stored records of chunks start..end-1, their lengths and digests, for `write` to
        copy into another snapshot file as they are. Only for a file checked whole
        (`verified`), as `decode_lazily` opens it: nothing is checked here."""
        return self._file.span(start, end)

    @property
    def built(self) -> int:
        """How many chunks have been built so far (read, or decoded for a search)."""
        return len(self._built) - self._left

    def _decode(self, position: int) -> Chunk:
        record = self._file.record(position)  # checked against its digest unless verified
        try:
            return Chunk(*pickle.loads(record))
        except _UNREADABLE as exc:
            raise self._file.damaged(f"chunk {position} is unreadable ({exc})") from exc


class _ByPosition(Sequence[Chunk]):
    """A sequence of chunks built one at a time: slices, negative and out-of-range positions
    are handled here, `_at` reads one position in range."""

    @overload
    def __getitem__(self, index: int) -> Chunk: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Chunk]: ...
    def __getitem__(self, index: int | slice) -> Chunk | Sequence[Chunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._at(index)

    @abstractmethod
    def _at(self, index: int) -> Chunk: ...


class _Chunks(_ByPosition):
    def __init__(self, stored: StoredSnapshot) -> None:
        self._stored = stored

    def __len__(self) -> int:
        return self._stored.chunk_count

    def _at(self, index: int) -> Chunk:
        return self._stored.chunk(index)

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._stored.every_chunk())  # whoever iterates reads them all


class StoredChunks(_ByPosition):
    """One file's chunks in a stored snapshot (positions start..start+count-1), each built
    when first read; equal to any sequence of equal chunks. `write` copies them as stored."""

    def __init__(self, stored: StoredSnapshot, start: int, count: int) -> None:
        self._stored, self._start, self._count = stored, start, count

    def __len__(self) -> int:
        return self._count

    def _at(self, index: int) -> Chunk:
        return self._stored.chunk(self._start + index)

    def __iter__(self) -> Iterator[Chunk]:
        return iter(self._stored.chunk_range(self._start, self._start + self._count))

    @property
    def stored(self) -> StoredSnapshot:
        """The snapshot file these chunks are read from."""
        return self._stored

    def records(self) -> Span:
        return self._stored.records(self._start, self._start + self._count)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, StoredChunks) and (other._stored, other._start, other._count) == (
            self._stored,
            self._start,
            self._count,
        ):
            return True
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(other) == self._count and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[type[tuple[Chunk, ...]], tuple[tuple[Chunk, ...]]]:
        return tuple, (tuple(self),)  # pickled as the tuple of its chunks, not a view of a file

    def __repr__(self) -> str:
        return f"StoredChunks({list(self)!r})"


class Concatenated(_ByPosition):
    """Several collections' chunks as one sequence by position (a set's, `set_chunks` order),
    each chunk built only when read."""

    def __init__(self, parts: Sequence[Sequence[Chunk]]) -> None:
        self._parts = tuple(parts)
        self._starts = [0]
        for part in self._parts:
            self._starts.append(self._starts[-1] + len(part))

    def __len__(self) -> int:
        return self._starts[-1]

    def _at(self, index: int) -> Chunk:
        part = bisect.bisect_right(self._starts, index) - 1
        return self._parts[part][index - self._starts[part]]

    def __iter__(self) -> Iterator[Chunk]:
        return itertools.chain.from_iterable(self._parts)
