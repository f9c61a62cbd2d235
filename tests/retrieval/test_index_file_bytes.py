"""The vectors and snapshot files hold the bytes their format (version 1) says, whoever writes
them: the shared container (retrieval/record_file.py) wrote them anew without a version bump,
so an index written before it must read after it, and the other way round.

The vectors file is pinned by the sha256 the writer before the container (3eb8f18) gave the
same matrix; the snapshot file, whose header is a pickle of the snapshot's classes, is read
here part by part as its module's docstring lays it out."""

from __future__ import annotations

import hashlib
import io
import itertools
import pickle
import struct
from pathlib import Path

import numpy as np

from retrieval import vectors_file
from retrieval.chunks import Chunk
from retrieval.index import build_index, index_root
from retrieval.manifest import read_manifest
from tests.retrieval.docs_tree import WordCounter, public_and_secret


def test_a_vectors_file_is_the_bytes_version_1_always_had() -> None:
    matrix = ((np.arange(3 * 6).reshape(3, 6) - 4) / 7).astype(np.float32)
    matrix[1] = 0  # a zero row: its prefix stays zero
    buffer = io.BytesIO()
    size, digest = vectors_file.write(buffer, matrix, 4)
    data = buffer.getvalue()
    assert (size, digest) == (len(data), hashlib.sha256(data).hexdigest())
    assert (size, digest) == (
        228,
        "40ba2b6ad5f817ad3ec8478027da88249b0153ba01f53c694e8f3f187773f4cf",
    )


def test_a_snapshot_file_is_laid_out_as_version_1(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    root = index_root(config)
    (entry,) = [e for e in read_manifest(root)["collections"] if e["name"] == "handbook"]
    data = (root / entry["snapshot"]).read_bytes()
    # MAGIC | header length, chunk count | header | offsets | blake2b-16 each | sha256 | records
    magic = b"docbot-snapshot-1\n"
    assert data.startswith(magic)
    header_length, count = struct.unpack_from("<QQ", data, len(magic))
    offsets_at = len(magic) + 16 + header_length
    digests_at = offsets_at + 8 * (count + 1)
    sha_at = digests_at + 16 * count
    offsets = struct.unpack_from(f"<{count + 1}Q", data, offsets_at)
    records = data[sha_at + 32 :]
    assert count > 3 and offsets[0] == 0 and offsets[-1] == len(records)
    assert data[sha_at : sha_at + 32] == hashlib.sha256(data[:sha_at]).digest()
    for position, (start, end) in enumerate(itertools.pairwise(offsets)):
        record = records[start:end]
        digest = data[digests_at + 16 * position : digests_at + 16 * (position + 1)]
        assert digest == hashlib.blake2b(record, digest_size=16).digest()
        assert isinstance(Chunk(*pickle.loads(record)), Chunk)  # a chunk's arguments, pickled
