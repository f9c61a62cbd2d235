"""Every damaged vectors, snapshot, token store or query tokens file is refused in words,
whichever byte is changed or wherever it is cut: at opening for the part before the records,
when read for a record. None is accepted, and none fails by another exception (a short read, an
index past the end)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np

from retrieval import token_store, vectors_file
from retrieval.index import build_index, index_root
from retrieval.manifest import read_manifest
from retrieval.query_tokens import QueryTokens, compile_tables
from retrieval.record_file import RecordFileError
from retrieval.snapshot_file import StoredSnapshot
from tests.retrieval.docs_tree import WordCounter, public_and_secret
from tests.retrieval.tiny_tokenizer import tiny_tokenizer

Read = Callable[[bytes], None]


def _damaged(data: bytes) -> list[bytes]:
    """`data` cut at every length, with each byte changed, and with a byte more."""
    cut = [data[:length] for length in range(len(data))]
    flipped = [data[:at] + bytes([data[at] ^ 0x41]) + data[at + 1 :] for at in range(len(data))]
    return [*cut, *flipped, data + b"\0"]


def _refused_every_way(data: bytes, read: Read) -> None:
    read(data)  # whole, it reads
    accepted = []
    for damaged in _damaged(data):
        try:
            read(damaged)
        except RecordFileError as exc:
            assert " is damaged (" in str(exc) or "incompatible docbot version" in str(exc)
        else:
            accepted.append(damaged)
    assert not accepted


def test_a_vectors_file_damaged_anywhere_is_refused(tmp_path: Path) -> None:
    matrix = ((np.arange(5 * 6).reshape(5, 6) - 4) / 7).astype(np.float32)
    buffer = io.BytesIO()
    vectors_file.write(buffer, matrix, 4)
    path = tmp_path / "v.vectors"

    def read(data: bytes) -> None:
        path.write_bytes(data)
        stored = vectors_file.StoredVectors(path, "the vectors file", "fix")
        stored.gather(np.arange(stored.rows, dtype=np.int64))

    _refused_every_way(buffer.getvalue(), read)


def test_a_snapshot_file_damaged_anywhere_is_refused(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    root = index_root(config)
    (entry,) = [e for e in read_manifest(root)["collections"] if e["name"] == "handbook"]

    def read(data: bytes) -> None:
        stored = StoredSnapshot(data, "the snapshot", "fix", verified=False)
        for position in range(stored.chunk_count):
            stored.chunk(position)

    _refused_every_way((root / entry["snapshot"]).read_bytes(), read)


def test_a_token_store_damaged_anywhere_is_refused(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    root = index_root(config)
    (entry,) = [e for e in read_manifest(root)["collections"] if e["name"] == "payments"]

    def read(data: bytes) -> None:
        stored = token_store.decode(data, "the token store", "fix", verified=False)
        assert stored.files  # what a rebuild would reuse

    _refused_every_way((root / entry["tokens"]["file"]).read_bytes(), read)


def test_a_query_tokens_file_damaged_anywhere_is_refused(tmp_path: Path) -> None:
    data = compile_tables(tiny_tokenizer(tmp_path))
    assert data is not None

    def read(data: bytes) -> None:
        assert QueryTokens(data, "the query tokens", "fix").encode("ab ab") == [4, 4]

    _refused_every_way(data, read)
