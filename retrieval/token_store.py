"""The search tokens of every chunk, kept between builds so a rebuild tokenizes changed files only.

Tokenizing is most of rebuilding an engine (~5 of 6 s for a one-file edit at 100k chunks,
benchmarks/incremental_index.py), and an engine is rebuilt whole whenever one file of one of
its collections changes. So each collection's tokens are stored beside its snapshot, in
`tokens/<collection>-<content>.tokens`, a file of retrieval/record_file.py's container:

    MAGIC | header length, file count (2 x u64) | header | offsets ((count + 1) x u64)
          | checksums (count x u32) | sha256 of everything before it | records

The header is JSON: the tokenizer's version, the chunking settings and, per file, its path,
sha256 (which with the chunking fix its chunks) and chunk count. Record `i` is file `i`'s
tokens in UTF-8: each chunk's tokens joined by spaces, the chunks by newlines (a token never
holds whitespace). The manifest records the file's size and sha256; a store that does not match
it, is damaged in any other way (the container's checks), or was made by another tokenizer or
chunking is not used: its collection is tokenized again. The store is an optimisation only:
an index without one is whole.
"""

from __future__ import annotations

import io
import json
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from retrieval import record_file
from retrieval.collections import CollectionSnapshot
from retrieval.corpus import index_text
from retrieval.durable import verify_file, write_atomically_from
from retrieval.errors import IndexNotBuiltError
from retrieval.record_file import CRC32, Layout, RecordFile, RecordFileError, Shape
from retrieval.text import tokenize

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

# (path, sha256) -> one space-joined token string per chunk of that file.
FileTokens = dict[tuple[str, str], tuple[str, ...]]
# A damaged store costs a rebuild its collection's tokenizing, nothing else.
_FIX = "`docbot index` tokenizes its collection again and writes the store anew"


class TokenStoreError(RecordFileError):
    """The bytes are not a token store this docbot writes, or part of them is damaged."""


def _shape(fields: tuple[int, ...]) -> Shape:
    header_length, count = fields
    return Shape(count=count, meta=header_length, record=None)


LAYOUT = Layout(
    kind=b"docbot-tokens",
    version=1,
    fields=struct.Struct("<QQ"),  # header length, file count
    shape=_shape,
    checksum=CRC32,  # for damage; the builder checks the whole file's sha256 anyway
    head_damaged="its header or file table does not match its checksum",
    record="file",
    error=TokenStoreError,
)


@dataclass(frozen=True, slots=True)
class StoredTokens:
    """What a token store holds: the tokenizer version and chunking it was made with, and each
    file's chunks' tokens."""

    tokenizer: str
    chunking: str
    files: FileTokens


def store_name(name: str, content: str) -> str:
    return f"tokens/{name}-{content}.tokens"


def write(handle: BinaryIO, stored: StoredTokens) -> tuple[int, str]:
    """Write the store to `handle`; its size and sha256."""
    table, records = [], []
    for (path, sha256), chunks in stored.files.items():
        record = "\n".join(chunks).encode("utf-8")
        if chunks and record.count(b"\n") != len(chunks) - 1:
            raise ValueError(f"a token of {path} holds a newline")  # tokenize() never makes one
        table.append([path, sha256, len(chunks)])
        records.append(record)
    header = {"tokenizer": stored.tokenizer, "chunking": stored.chunking, "files": table}
    meta = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return record_file.write(
        handle,
        LAYOUT,
        (len(meta), len(records)),
        meta,
        records,
        [CRC32.of(record) for record in records],
        [len(record) for record in records],
    )


def encode(stored: StoredTokens) -> bytes:
    """The file's bytes (as `write` writes them)."""
    buffer = io.BytesIO()
    write(buffer, stored)
    return buffer.getvalue()


def decode(data: ReadableBuffer, where: str, fix: str, *, verified: bool) -> StoredTokens:
    """The store in `data`; TokenStoreError "`where` is damaged (what): `fix`" if it is not
    one, whole, of this version. `verified`: `data` matched the manifest's sha256 already, so
    the records' checksums are not checked again."""
    file = RecordFile(data, LAYOUT, where, fix, verified=verified)
    try:
        header = json.loads(bytes(file.meta).decode("utf-8"))
    except ValueError as exc:  # not UTF-8, or not JSON
        raise file.damaged(f"its header is unreadable ({exc})") from exc
    table = _table(header, file.count)
    if table is None:
        raise file.damaged("its header is not a token store's")
    files: FileTokens = {}
    for position, (path, sha256, count) in enumerate(table):
        try:
            text = bytes(file.record(position)).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise file.damaged(f"file {position}'s tokens are not UTF-8 ({exc})") from exc
        chunks = tuple(text.split("\n")) if count else ()
        if len(chunks) != count or (not count and text):
            raise file.damaged(f"file {position} has not the {count} chunks its header says")
        files[(path, sha256)] = chunks
    return StoredTokens(header["tokenizer"], header["chunking"], files)


def _table(header: object, count: int) -> list[tuple[str, str, int]] | None:
    """The header's files as (path, sha256, chunk count), or None if it is not a store's."""
    if not (
        isinstance(header, dict)
        and isinstance(header.get("tokenizer"), str)
        and isinstance(header.get("chunking"), str)
        and isinstance(header.get("files"), list)
        and len(header["files"]) == count
    ):
        return None
    table = []
    for row in header["files"]:
        if not (isinstance(row, list) and len(row) == 3):
            return None
        path, sha256, chunks = row
        if not (isinstance(path, str) and isinstance(sha256, str) and type(chunks) is int):
            return None
        if chunks < 0:
            return None
        table.append((path, sha256, chunks))
    return table


def _recorded(entry: Mapping[str, Any] | None) -> tuple[str, int, str] | None:
    """(file, size, sha256) of a manifest tokens entry, or None if it records none."""
    if entry is None:
        return None
    file, size, sha256 = entry.get("file"), entry.get("bytes"), entry.get("sha256")
    if isinstance(file, str) and type(size) is int and isinstance(sha256, str):
        return file, size, sha256
    return None


class TokenCache:
    """Tokenizes each collection at most once per build, reusing the last build's stored tokens
    of every unchanged file; `entry` stores the collections it tokenized."""

    def __init__(
        self,
        root: Path,
        snapshots: Mapping[str, CollectionSnapshot],
        previous: Mapping[str, Mapping[str, Any]],
        version: str,
    ) -> None:
        self._root = root
        self._snapshots = snapshots
        self._previous = previous  # collection -> its last manifest tokens entry
        self._version = version  # the tokenizer's: stored tokens of another are not used
        self._tokens: dict[str, FileTokens] = {}
        self._intact: set[str] = set()  # collections whose previous store was read and checked
        self.tokenized = 0  # chunks tokenized this build (the others' tokens were stored)

    def documents(self, name: str) -> list[str]:
        """The chunks of collection `name` in position order, each its tokens joined by spaces."""
        if name not in self._tokens:
            self._tokens[name] = self._collection(name)
        tokens = self._tokens[name]
        return [
            joined
            for record in self._snapshots[name].files
            for joined in tokens[(record.path, record.sha256)]
        ]

    def corpus(self, names: Sequence[str]) -> list[list[str]]:
        """The token lists of a set's chunks, in `set_chunks` order."""
        return [
            joined.split(" ") if joined else []
            for name in sorted(names)
            for joined in self.documents(name)
        ]

    def _collection(self, name: str) -> FileTokens:
        snapshot = self._snapshots[name]
        stored = self._read(name, snapshot.chunking)
        found: FileTokens = {}
        for record in snapshot.files:
            key = (record.path, record.sha256)
            kept = stored.get(key)
            if kept is not None and len(kept) == len(record.chunks):
                found[key] = kept
            else:
                found[key] = tuple(" ".join(tokenize(index_text(c))) for c in record.chunks)
                self.tokenized += len(record.chunks)
        return found

    def _read(self, name: str, chunking: str) -> FileTokens:
        recorded = _recorded(self._previous.get(name))
        if recorded is None:
            return {}
        file, size, sha256 = recorded
        path = self._root / file
        where = f"the token store {path}"
        try:
            data = record_file.read(path, LAYOUT, where, _FIX, size=size, sha256=sha256)
            stored = decode(data, where, _FIX, verified=True)
        except TokenStoreError:
            return {}  # damaged, foreign or gone: its collection is tokenized again
        if (stored.tokenizer, stored.chunking) != (self._version, chunking):
            return {}  # whole, but of another tokenizer or chunking
        self._intact.add(name)
        return stored.files

    def entry(self, name: str, content: str) -> dict[str, Any] | None:
        """The manifest's tokens entry for collection `name` at `content`: written now if this
        build tokenized it, else the last build's if it is of this content and intact."""
        file = store_name(name, content)
        kept = self._previous.get(name)
        recorded = _recorded(kept)
        same = recorded is not None and recorded[0] == file
        if kept is not None and same and name in self._intact:
            return dict(kept)  # the same content, read and checked this build
        if name in self._tokens:
            stored = StoredTokens(self._version, self._snapshots[name].chunking, self._tokens[name])
            size, sha256 = write_atomically_from(self._root / file, lambda h: write(h, stored))
            return {"file": file, "bytes": size, "sha256": sha256}
        if kept is None or recorded is None or not same:
            return None  # nothing of this content was stored
        try:
            verify_file(self._root / file, recorded[1], recorded[2])
        except IndexNotBuiltError:
            return None
        return dict(kept)
