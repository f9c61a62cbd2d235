"""The bytes of a collection snapshot file: its chunks readable one by one, by position.

A search needs only its hits' chunks, yet unpickling a whole snapshot builds every chunk of
the collection (0.3 s for 70k chunks, most of a cold `docbot search`). So the file is:

    MAGIC | header length, chunk count (2 x u64) | header | offsets ((count + 1) x u64)
          | digests (count x 16 bytes) | sha256 of everything before it | records

The header is the snapshot pickled without its chunks, plus each file's chunk count; record
`i` (bytes `offsets[i]:offsets[i+1]` of the records) is chunk `i`'s constructor arguments
pickled, chunks in `set_chunks` order (files by path). `decode` rebuilds the whole snapshot
(the builder); `StoredSnapshot` checks the size and the sha256 of the part before the records
when opened, then decodes a chunk, checking its digest, on first access: damage anywhere is
refused as soon as it is read, and a search hashes only what it reads.
"""

from __future__ import annotations

import bisect
import dataclasses
import hashlib
import itertools
import pickle
import struct
import threading
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import overload

from retrieval import pickling
from retrieval.chunks import Chunk
from retrieval.collections import CollectionSnapshot, FileRecord
from retrieval.errors import IndexNotBuiltError

MAGIC = b"docbot-snapshot-1\n"
_COUNTS = struct.Struct("<QQ")
_PROTOCOL = pickle.HIGHEST_PROTOCOL
_DIGEST = 16  # blake2b digest size per record: detects damage, not forgery


class SnapshotFileError(IndexNotBuiltError):
    """The bytes are not a snapshot file this docbot writes, or part of them is damaged."""


def _digest(record: bytes | memoryview) -> bytes:
    return hashlib.blake2b(record, digest_size=_DIGEST).digest()


def encode(snapshot: CollectionSnapshot) -> bytes:
    chunks = [chunk for record in snapshot.files for chunk in record.chunks]
    bare = dataclasses.replace(
        snapshot, files=tuple(dataclasses.replace(r, chunks=()) for r in snapshot.files)
    )
    counts = tuple(len(record.chunks) for record in snapshot.files)
    header = pickling.dumps((bare, counts))
    records = [pickle.dumps(chunk.__reduce__()[1], protocol=_PROTOCOL) for chunk in chunks]
    offsets = [0]
    for record in records:
        offsets.append(offsets[-1] + len(record))
    prefix = b"".join(
        (
            MAGIC,
            _COUNTS.pack(len(header), len(chunks)),
            header,
            struct.pack(f"<{len(offsets)}Q", *offsets),
            b"".join(_digest(record) for record in records),
        )
    )
    return b"".join((prefix, hashlib.sha256(prefix).digest(), *records))


def decode(data: bytes, where: str, fix: str) -> CollectionSnapshot:
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


class StoredSnapshot:
    """A snapshot file opened for reading chunks by position (thread-safe).

    Damage is refused with SnapshotFileError "`where` is damaged (what): `fix`", at opening
    for the header and chunk table, at a chunk's first access for its record.
    """

    def __init__(self, data: bytes, where: str, fix: str, *, verified: bool) -> None:
        """`verified`: the whole of `data` matched the manifest's sha256 already, so the
        per-chunk digests need no checking."""
        self._where, self._fix, self._verified = where, fix, verified
        view = memoryview(data)
        start = len(MAGIC)
        if bytes(view[:start]) != MAGIC or len(data) < start + _COUNTS.size:
            raise SnapshotFileError(f"{where} was written by an incompatible docbot version: {fix}")
        header_length, count = _COUNTS.unpack_from(data, start)
        header_at = start + _COUNTS.size
        offsets_at = header_at + header_length
        digests_at = offsets_at + 8 * (count + 1)
        records_at = digests_at + _DIGEST * count + 32
        if records_at > len(data):
            raise self._damaged("the file is cut short")
        table = view[: records_at - 32]
        if hashlib.sha256(table).digest() != bytes(view[records_at - 32 : records_at]):
            raise self._damaged("its header or chunk table does not match its checksum")
        try:
            bare, counts = pickling.loads(bytes(view[header_at:offsets_at]))
        except (pickle.UnpicklingError, EOFError, AttributeError, TypeError, ImportError) as exc:
            raise self._damaged(f"its header is unreadable ({exc})") from exc
        if not isinstance(bare, CollectionSnapshot) or sum(counts) != count:
            raise self._damaged("its header is not a collection snapshot's")
        self.snapshot: CollectionSnapshot = bare  # the files' chunks are empty here
        self.counts: tuple[int, ...] = tuple(counts)
        # Written "<Q"; cast reads native order, little-endian on every platform docbot runs on.
        self._offsets = view[offsets_at:digests_at].cast("Q")
        self._digests = view[digests_at : records_at - 32]
        self._records = view[records_at:]
        if self._offsets[count] != len(self._records):
            raise self._damaged("its chunk records are cut short or too long")
        self._built: list[Chunk | None] = [None] * count
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

    def _damaged(self, what: str) -> SnapshotFileError:
        return SnapshotFileError(f"{self._where} is damaged ({what}): {self._fix}")

    def chunk(self, position: int) -> Chunk:
        found = self._built[position]
        if found is None:
            found = self._decode(position)
            with self._lock:
                self._built[position] = found
        return found

    def every_chunk(self) -> list[Chunk]:
        """All the chunks, built in one pass with the garbage collector paused (as a whole
        pickle was read: pickling.py): 0.13 s for 40k chunks, not 0.3 s one by one."""
        with self._lock, pickling.collector_paused():
            built = self._built
            if self._verified and not any(built):
                # Nothing to check per chunk: one tight loop (most of a builder's read).
                ends, records, loads = self._offsets.tolist(), self._records, pickle.loads
                try:
                    built[:] = [Chunk(*loads(records[a:b])) for a, b in itertools.pairwise(ends)]
                except (pickle.UnpicklingError, EOFError, TypeError, ValueError) as exc:
                    raise self._damaged(f"a chunk is unreadable ({exc})") from exc
            for position, found in enumerate(built):
                if found is None:
                    built[position] = self._decode(position)
            return built  # type: ignore[return-value]  # none is None any more

    def _decode(self, position: int) -> Chunk:
        start, end = self._offsets[position], self._offsets[position + 1]
        record = self._records[start:end]
        if not self._verified and _digest(record) != bytes(
            self._digests[_DIGEST * position : _DIGEST * (position + 1)]
        ):
            raise self._damaged(f"chunk {position} does not match its checksum")
        try:
            return Chunk(*pickle.loads(record))
        except (pickle.UnpicklingError, EOFError, TypeError, ValueError) as exc:
            raise self._damaged(f"chunk {position} is unreadable ({exc})") from exc


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
