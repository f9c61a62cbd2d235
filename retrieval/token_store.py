"""The search tokens of every chunk, kept between builds so a rebuild tokenizes changed files only.

Tokenizing is most of rebuilding an engine (~5 of 6 s for a one-file edit at 100k chunks,
benchmarks/incremental_index.py), and an engine is rebuilt whole whenever one file of one of
its collections changes. So each collection's tokens are stored beside its snapshot, in
`tokens/<collection>-<content>.pickle`: per file (path and sha256, which with the snapshot's
chunking settings fix its chunks), one string per chunk, its tokens joined by spaces (a token
never holds whitespace). The manifest records the file's size and sha256; a store that does
not match it, or was made by another tokenizer or chunking, is not used: its collection is
tokenized again. The store is an optimisation only: an index without one is whole.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from retrieval import pickling
from retrieval.collections import CollectionSnapshot
from retrieval.corpus import index_text
from retrieval.durable import verify_file, write_atomically
from retrieval.errors import IndexNotBuiltError
from retrieval.text import tokenize

# (path, sha256) -> one space-joined token string per chunk of that file.
FileTokens = dict[tuple[str, str], tuple[str, ...]]
_UNREADABLE: tuple[type[Exception], ...] = (
    IndexNotBuiltError,
    OSError,
    KeyError,
    TypeError,
    ValueError,
    EOFError,
)
_UNREADABLE += (pickle.UnpicklingError, AttributeError, ImportError)
# Bump when the stored layout changes.
_LAYOUT = 1


def store_name(name: str, content: str) -> str:
    return f"tokens/{name}-{content}.pickle"


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
        entry = self._previous.get(name)
        try:
            if entry is None:
                return {}
            path = self._root / str(entry["file"])
            verify_file(path, int(entry["bytes"]), str(entry["sha256"]))
            value = pickling.loads(path.read_bytes())
            if value["layout"] != _LAYOUT or (value["tokenizer"], value["chunking"]) != (
                self._version,
                chunking,
            ):
                return {}
            files: FileTokens = value["files"]
        except _UNREADABLE:
            return {}  # damaged, foreign or gone: its collection is tokenized again
        self._intact.add(name)
        return files

    def entry(self, name: str, content: str) -> dict[str, Any] | None:
        """The manifest's tokens entry for collection `name` at `content`: written now if this
        build tokenized it, else the last build's if it is of this content and intact."""
        file = store_name(name, content)
        kept = self._previous.get(name)
        if kept is not None and kept.get("file") == file and name in self._intact:
            return dict(kept)  # the same content, read and checked this build
        if name in self._tokens:
            value = {"layout": _LAYOUT, "tokenizer": self._version}
            value |= {"chunking": self._snapshots[name].chunking, "files": self._tokens[name]}
            data = pickling.dumps(value)
            write_atomically(self._root / file, data)
            return {"file": file, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        if kept is None or kept.get("file") != file:
            return None
        try:
            verify_file(self._root / file, int(kept["bytes"]), str(kept["sha256"]))
        except (IndexNotBuiltError, KeyError, TypeError, ValueError):
            return None
        return dict(kept)
