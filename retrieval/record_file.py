"""The container of the index's files of records (retrieval/vectors_file.py: a row per chunk's
vector; retrieval/snapshot_file.py: a record per chunk; retrieval/token_store.py: a record per
file's tokens; retrieval/query_tokens.py: a record per table) and how a file that is not one,
whole and of this version, is refused:

    MAGIC | fields (u64s) | zeros to `Layout.padded` | meta | offsets ((count + 1) x u64, only
          if records differ in length) | checksums (count x `Checksum.size` bytes)
          | sha256 of everything before it | records

MAGIC is `Layout.kind`, "-", the layout's version and a newline. The fields are the format's
own (a vectors file's rows, dimensions and prefix dimensions; a snapshot's header length and
chunk count) and fix, through `Layout.shape`, how many records there are, how long the meta
part is and how long a record is. The manifest records each file's size and sha256. A file
opened `verified` (its sha256 matched the manifest's: a whole load, a builder) is not checked
again; otherwise (one search) its size and the sha256 of the part before the records are
checked when it is opened and each record's checksum when that record is read, so damage to
what is read is refused and a search hashes what it reads, not the whole file. The checksums
detect damage, not forgery; neither does the rest of the index.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from retrieval.errors import IndexNotBuiltError, other_version

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_SHA = 32
_OFFSET = struct.Struct("<Q")


class RecordFileError(IndexNotBuiltError):
    """The bytes are not a file of this layout and version, or what was read of them is damaged.
    Its message says which file, what is wrong and the fix."""


@dataclass(frozen=True, slots=True)
class Checksum:
    """A record's checksum: `size` bytes, `of(record)`."""

    size: int
    of: Callable[[ReadableBuffer], bytes]


def _crc32(record: ReadableBuffer) -> bytes:
    return zlib.crc32(record).to_bytes(4, "little")


def _blake2b(record: ReadableBuffer) -> bytes:
    return hashlib.blake2b(record, digest_size=16).digest()


CRC32 = Checksum(4, _crc32)  # fast: 1 KB vector rows, tens of thousands per build
BLAKE2B = Checksum(16, _blake2b)


@dataclass(frozen=True, slots=True)
class Shape:
    """What a file's fields say: `count` records, `meta` bytes of meta part, `record` bytes per
    record (None: each record its own length, kept in the offsets table)."""

    count: int
    meta: int
    record: int | None


@dataclass(frozen=True, slots=True)
class Layout:
    """One format in this container. `head_damaged` and `record` are its words for the part
    before the records and for one record in a damaged file's message; `error` is what it
    raises."""

    kind: bytes  # b"docbot-vectors"
    version: int
    fields: struct.Struct
    shape: Callable[[tuple[int, ...]], Shape]
    checksum: Checksum
    head_damaged: str  # "its header or chunk table does not match its checksum"
    record: str  # "chunk"
    error: type[RecordFileError]
    padded: int = 0  # the magic and fields are followed by zeros up to this many bytes

    @property
    def magic(self) -> bytes:
        return self.kind + b"-%d\n" % self.version

    @property
    def meta_at(self) -> int:
        return max(len(self.magic) + self.fields.size, self.padded)


def write(
    handle: BinaryIO,
    layout: Layout,
    fields: tuple[int, ...],
    meta: ReadableBuffer,
    records: Iterable[ReadableBuffer],
    checksums: Iterable[ReadableBuffer],
    lengths: Sequence[int] | None = None,
) -> tuple[int, str]:
    """Write a file of `layout` to `handle`: `records` (any grouping of their bytes, in order),
    `checksums` (theirs, as `layout.checksum` makes them, any grouping) and, if records differ
    in length, each one's `lengths`. Returns the file's size and sha256 (hashed as written)."""
    shape = layout.shape(fields)
    whole = hashlib.sha256()
    written = 0

    def put(part: ReadableBuffer) -> int:
        nonlocal written
        size = memoryview(part).nbytes
        whole.update(part)
        handle.write(part)
        written += size
        return size

    put((layout.magic + layout.fields.pack(*fields)).ljust(layout.padded, b"\0"))
    if put(meta) != shape.meta:
        raise ValueError(f"{shape.meta} bytes of meta part expected")
    if shape.record is None:
        if lengths is None or len(lengths) != shape.count:
            raise ValueError(f"{shape.count} record lengths expected")
        offsets = list(accumulate(lengths, initial=0))
        put(struct.pack(f"<{len(offsets)}Q", *offsets))
    if sum(put(part) for part in checksums) != layout.checksum.size * shape.count:
        raise ValueError(f"{shape.count} checksums expected")
    put(whole.copy().digest())  # the head's sha256: the whole file's hash goes on from here
    total = sum(put(part) for part in records)
    expected = offsets[-1] if shape.record is None else shape.record * shape.count
    if total != expected:
        raise ValueError(f"{expected} bytes of records expected, not {total}")
    return written, whole.hexdigest()


def read(
    path: Path,
    layout: Layout,
    where: str,
    fix: str,
    *,
    size: int | None,
    sha256: str | None = None,
    mapped: bool = False,
) -> bytes | mmap.mmap:
    """The bytes of the file at `path` (memory-mapped if `mapped`), refused unless of the
    `size` the manifest recorded (None: not known) and, if given, its `sha256`."""
    try:
        with path.open("rb") as handle:
            found = os.fstat(handle.fileno()).st_size
            if size is not None and found != size:
                changed = f"it is {found} bytes, not the {size} docbot index wrote"
                raise layout.error(f"{where} is damaged ({changed}): {fix}")
            data: bytes | mmap.mmap = b""
            if not mapped:
                data = handle.read()
            elif found:  # an empty file cannot be mapped
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise layout.error(f"{where} is unreadable ({exc.strerror or exc}): {fix}") from exc
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        changed = "it has changed since docbot index wrote it"
        raise layout.error(f"{where} is damaged ({changed}): {fix}")
    return data


class RecordFile:
    """A file of `layout` opened over its bytes (bytes or a memory map): its `fields`, its `meta`
    part and its records by position. Refused with `layout.error` "`where` is damaged (what):
    `fix`": at opening for the part before the records, when read for a record.

    `verified`: the whole of `data` matched the manifest's sha256 already, so nothing is
    checked twice: not the head's sha256, not a record's checksum."""

    def __init__(
        self, data: ReadableBuffer, layout: Layout, where: str, fix: str, *, verified: bool
    ) -> None:
        self.layout, self.verified = layout, verified
        self._where, self._fix = where, fix
        view = memoryview(data)
        self.fields: tuple[int, ...] = self._fields(view)
        shape = layout.shape(self.fields)
        offsets_at = layout.meta_at + shape.meta
        table = _OFFSET.size * (shape.count + 1) if shape.record is None else 0
        checksums_at = offsets_at + table
        sha_at = checksums_at + layout.checksum.size * shape.count
        if sha_at + _SHA > len(view):
            raise self.damaged("the file is cut short")
        if not verified and hashlib.sha256(view[:sha_at]).digest() != view[sha_at : sha_at + _SHA]:
            raise self.damaged(layout.head_damaged)
        self.count = shape.count
        self.meta = view[layout.meta_at : offsets_at]
        self.records = view[sha_at + _SHA :]
        self._checksums = view[checksums_at:sha_at]
        self._length = shape.record or 0  # of every record, if they are of one length
        # Written "<Q"; cast reads native order, little-endian on every platform docbot runs on.
        self.offsets: memoryview | None = None
        end = shape.count * self._length
        if shape.record is None:
            self.offsets = view[offsets_at:checksums_at].cast("Q")
            end = self.offsets[shape.count]
        if end != len(self.records):
            raise self.damaged(f"its {layout.record}s are cut short or too long")

    def _fields(self, view: memoryview) -> tuple[int, ...]:
        layout = self.layout
        magic = layout.magic
        if view[: len(magic)] != magic:
            if magic.startswith(view):  # shorter than its magic
                raise self.damaged("the file is cut short")
            found = bytes(view[: len(magic) + 8]).partition(b"\n")[0]
            name = found.removeprefix(layout.kind + b"-")
            if len(name) < len(found) and name.isdigit():  # this kind, another version
                version = other_version(int(name), layout.version)
                raise layout.error(
                    f"{self._where} was written by {version}, incompatible docbot version: "
                    f"{self._fix}"
                )
            raise layout.error(
                f"{self._where} was written by an incompatible docbot version: {self._fix}"
            )
        if len(view) < layout.meta_at:
            raise self.damaged("the file is cut short")
        return tuple(layout.fields.unpack_from(view, len(magic)))

    def damaged(self, what: str) -> RecordFileError:
        """The error for this file: "`where` is damaged (`what`): `fix`"."""
        return self.layout.error(f"{self._where} is damaged ({what}): {self._fix}")

    def record(self, position: int) -> memoryview:
        """The bytes of record `position` (0 <= position < count), checked against its checksum
        unless the file was verified."""
        if self.offsets is None:
            start, end = self._length * position, self._length * (position + 1)
        else:
            start, end = self.offsets[position], self.offsets[position + 1]
            if not start <= end <= len(self.records):
                raise self.damaged(
                    f"its table puts {self.layout.record} {position} past the end of the file"
                )
        found = self.records[start:end]
        if not self.verified:
            self.check(position, found)
        return found

    def check(self, position: int, record: ReadableBuffer) -> None:
        """Refuse `record` (record `position`'s bytes, read by the caller) unless it matches its
        checksum."""
        size = self.layout.checksum.size
        stored = self._checksums[size * position : size * (position + 1)]
        if self.layout.checksum.of(record) != stored:
            raise self.damaged(f"{self.layout.record} {position} does not match its checksum")

    def check_each(self, positions: Sequence[int], records: Sequence[ReadableBuffer]) -> None:
        """`check` for each of `records` (the bytes of records `positions`) at once: the table
        is gathered and compared whole, not slice by slice (a search's 1,000-row shortlist)."""
        size = self.layout.checksum.size
        table = np.frombuffer(self._checksums, dtype=f"V{size}")
        stored = table[np.asarray(positions, dtype=np.int64)].tobytes()
        if b"".join(map(self.layout.checksum.of, records)) != stored:
            for position, record in zip(positions, records, strict=True):
                self.check(position, record)  # refuses the first that does not match

    def unchecked(self, start: int, end: int) -> Iterator[memoryview]:
        """Records start..end-1 of a verified file, without a check each (a builder's or a whole
        load's read of every record)."""
        if not self.verified:
            raise ValueError("records are read unchecked only from a verified file")
        if self.offsets is None:
            ends = [self._length * position for position in range(start, end + 1)]
        else:
            ends = self.offsets[start : end + 1].tolist()
        records = self.records
        return (records[a:b] for a, b in pairwise(ends))

    def span(self, start: int, end: int) -> Span:
        """Records start..end-1 as stored, for `write` to copy into another file of this layout
        as they are: only from a verified file, since nothing is checked here."""
        if not self.verified:
            raise ValueError("records are copied only from a file whose sha256 was checked")
        size = self.layout.checksum.size
        checksums = self._checksums[size * start : size * end]
        if self.offsets is None:
            length = self._length
            return Span(self.records[length * start : length * end], None, checksums)
        offsets = self.offsets[start : end + 1].tolist()
        lengths = [b - a for a, b in pairwise(offsets)]
        return Span(self.records[offsets[0] : offsets[-1]], lengths, checksums)


@dataclass(frozen=True, slots=True)
class Span:
    """Consecutive records of a file as stored: their bytes, lengths (None: all of the
    layout's one length) and checksums."""

    records: memoryview
    lengths: list[int] | None
    checksums: memoryview
