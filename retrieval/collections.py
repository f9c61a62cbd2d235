"""Scanning one collection into a snapshot of its files and chunks, re-reading only what changed."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import TYPE_CHECKING

from retrieval.chunks import Chunk
from retrieval.config import CollectionConfig, SearchConfig
from retrieval.errors import DocbotError
from retrieval.file_dates import file_dates
from retrieval.files import Skipped, SourceText, find_files, read_source

if TYPE_CHECKING:
    from retrieval.tokens import TokenCounter

# Bump when chunk_document's output changes for the same input, so old snapshots are not reused.
CHUNKER_VERSION = "4"


@dataclass(frozen=True, slots=True)
class FileRecord:
    path: str
    size: int
    mtime_ns: int
    sha256: str
    updated: str
    note: str
    # A tuple, or the chunks as stored (retrieval/snapshot_file.StoredChunks), built when read.
    chunks: Sequence[Chunk]

    def __reduce__(self) -> tuple[type[FileRecord], tuple[object, ...]]:
        # As Chunk.__reduce__: constructor arguments, fast to unpickle.
        return FileRecord, _record_arguments(self)


_record_arguments = attrgetter(*(field.name for field in dataclasses.fields(FileRecord)))


@dataclass(frozen=True, slots=True)
class CollectionSnapshot:
    name: str
    files: tuple[FileRecord, ...]  # sorted by path
    skipped: tuple[Skipped, ...]
    # What the chunks were made with; a snapshot made differently is never reused.
    chunking: str = ""
    # Which files the collection selected (its path, include and exclude): an index whose
    # selection differs from the config's is stale, since it may hold files now excluded.
    selection: str = ""
    # The source revision the files are from (a git commit), "" for a local folder.
    revision: str = ""

    @property
    def chunk_count(self) -> int:
        return sum(len(record.chunks) for record in self.files)


@dataclass(frozen=True, slots=True)
class ScanChanges:
    """What happened to the indexed files (skipped files are listed in the snapshot)."""

    new: tuple[str, ...]  # indexed now, not before
    changed: tuple[str, ...]  # indexed before and now, content differs: re-chunked
    deleted: tuple[str, ...]  # indexed before, gone now (removed, excluded or now skipped)
    unchanged: int  # indexed before and now with the same content
    # About this scan as a whole, e.g. why file dates fell back to modification times.
    notes: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return bool(self.new or self.changed or self.deleted)


def chunking_key(search: SearchConfig) -> str:
    return f"v{CHUNKER_VERSION}:tokens={search.chunk_tokens}:bytes={search.max_file_bytes}"


def selection_key(collection: CollectionConfig) -> str:
    selected = {
        "path": str(collection.folder),
        "include": list(collection.include),
        "exclude": list(collection.exclude),
    }
    return hashlib.sha256(json.dumps(selected, sort_keys=True).encode()).hexdigest()[:16]


def scan_collection(
    collection: CollectionConfig,
    search: SearchConfig,
    counter: TokenCounter,
    previous: CollectionSnapshot | None,
    revision: str = "",
) -> tuple[CollectionSnapshot, ScanChanges]:
    """Snapshot the collection's files; a file whose size and mtime match `previous` is not read.

    `revision` is what the folder holds, when its source has one (a git source's commit)."""
    root = collection.folder
    if not root.is_dir():
        raise DocbotError(
            f"collection {collection.name!r}: folder {root} does not exist or is not a folder; "
            "restore it, or fix the collection's `path` in the config file"
        )
    key = chunking_key(search)
    reusable = previous if previous is not None and previous.chunking == key else None
    before = {record.path: record for record in reusable.files} if reusable else {}
    found = find_files(collection)
    dates, dates_note = file_dates(root, found.paths)
    scan = _Scan(collection, search, counter, before, dates, skipped=list(found.skipped))
    for path in found.paths:
        scan.visit(path)
    snapshot = CollectionSnapshot(
        collection.name,
        tuple(scan.files),
        tuple(scan.skipped),
        key,
        selection_key(collection),
        revision,
    )
    changes = scan.changes(previous, frozenset(r.path for r in snapshot.files))
    notes = (dates_note,) if dates_note else ()
    return snapshot, dataclasses.replace(changes, notes=notes)


@dataclass(slots=True)
class _Scan:
    collection: CollectionConfig
    search: SearchConfig
    counter: TokenCounter
    before: Mapping[str, FileRecord]
    dates: Mapping[str, str]
    files: list[FileRecord] = dataclasses.field(default_factory=list)
    skipped: list[Skipped] = dataclasses.field(default_factory=list)
    rechunked: list[str] = dataclasses.field(default_factory=list)

    def visit(self, path: str) -> None:
        old = self.before.get(path)
        try:
            stat = os.stat(self.collection.folder / path)
        except OSError as exc:
            self.skipped.append(Skipped(self.collection.name, path, f"cannot read: {exc}"))
            return
        updated = self.dates.get(path, "")
        if old is not None and (old.size, old.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            self.files.append(_redated(old, updated))
            return
        source = read_source(self.collection, path, self.search.max_file_bytes)
        if isinstance(source, Skipped):
            self.skipped.append(source)
        elif old is not None and old.sha256 == source.sha256:
            # Touched, not edited: same bytes, so the same chunks.
            self.files.append(_redated(_restated(old, source), updated))
        else:
            self.files.append(self._record(source, updated))
            self.rechunked.append(path)

    def _record(self, source: SourceText, updated: str) -> FileRecord:
        # Imported by scans only: loading an index unpickles snapshots through this module,
        # and the chunker (with tiktoken) is ~0.1 s of a cold `docbot search` otherwise.
        from retrieval.chunking import chunk_document

        chunks = chunk_document(
            self.collection.name,
            source.path,
            source.text,
            updated,
            self.counter,
            self.search.chunk_tokens,
        )
        return FileRecord(
            source.path, source.size, source.mtime_ns, source.sha256, updated, source.note, chunks
        )

    def changes(self, previous: CollectionSnapshot | None, now: frozenset[str]) -> ScanChanges:
        was = frozenset(r.path for r in previous.files) if previous is not None else frozenset()
        rechunked = frozenset(self.rechunked)
        return ScanChanges(
            new=tuple(sorted(now - was)),
            changed=tuple(sorted((now & was) & rechunked)),
            deleted=tuple(sorted(was - now)),
            unchanged=len((now & was) - rechunked),
        )


def _restated(old: FileRecord, source: SourceText) -> FileRecord:
    return dataclasses.replace(old, size=source.size, mtime_ns=source.mtime_ns, note=source.note)


def _redated(record: FileRecord, updated: str) -> FileRecord:
    """The same chunks under a new last-change date (e.g. a commit that did not edit the file)."""
    if record.updated == updated:
        return record
    chunks = tuple(dataclasses.replace(chunk, updated=updated) for chunk in record.chunks)
    return dataclasses.replace(record, updated=updated, chunks=chunks)
