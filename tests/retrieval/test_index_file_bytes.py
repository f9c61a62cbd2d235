"""The vectors and snapshot files hold the bytes their format (version 1) says, whoever writes
them: the shared container (retrieval/record_file.py) wrote them anew without a version bump,
so an index written before it must read after it, and the other way round.

The vectors file is pinned by the sha256 the writer before the container (3eb8f18) gave the
same matrix; the snapshot file, whose header is a pickle of the snapshot's classes, is read
here part by part as its module's docstring lays it out. The token store and the query tokens,
moved into the container with manifest format 8, are pinned the same two ways."""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import pickle
import struct
import zlib
from pathlib import Path

import numpy as np

from retrieval import vectors_file
from retrieval.chunks import Chunk
from retrieval.index import build_index, index_root
from retrieval.manifest import read_manifest
from retrieval.query_tokens import compile_tables
from tests.retrieval.docs_tree import WordCounter, public_and_secret
from tests.retrieval.tiny_tokenizer import tiny_tokenizer


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


def test_a_token_store_is_laid_out_as_version_1(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="bm25")
    build_index(config, WordCounter())
    root = index_root(config)
    (entry,) = [e for e in read_manifest(root)["collections"] if e["name"] == "handbook"]
    data = (root / entry["tokens"]["file"]).read_bytes()
    # MAGIC | header length, file count | header | offsets | crc32 each | sha256 | records
    magic = b"docbot-tokens-1\n"
    assert data.startswith(magic)
    header_length, count = struct.unpack_from("<QQ", data, len(magic))
    header = json.loads(data[len(magic) + 16 : len(magic) + 16 + header_length])
    offsets_at = len(magic) + 16 + header_length
    checksums_at = offsets_at + 8 * (count + 1)
    sha_at = checksums_at + 4 * count
    offsets = struct.unpack_from(f"<{count + 1}Q", data, offsets_at)
    records = data[sha_at + 32 :]
    assert data[sha_at : sha_at + 32] == hashlib.sha256(data[:sha_at]).digest()
    assert header["tokenizer"] and header["chunking"] and len(header["files"]) == count == 3
    assert offsets[-1] == len(records)
    for position, (path, _, chunks) in enumerate(header["files"]):
        record = records[offsets[position] : offsets[position + 1]]
        crc = data[checksums_at + 4 * position : checksums_at + 4 * (position + 1)]
        assert crc == zlib.crc32(record).to_bytes(4, "little")
        lines = record.decode("utf-8").split("\n")
        assert len(lines) == chunks and all(line.split(" ") for line in lines), path


def test_a_query_tokens_file_is_the_bytes_version_2_says(tmp_path: Path) -> None:
    data = compile_tables(tiny_tokenizer(tmp_path))
    assert data is not None
    assert (len(data), hashlib.sha256(data).hexdigest()) == (
        1337,
        "2cb6b53ec8f2095523fbe59af5d49bd47510f9f608fb9126a497b7f95703c486",
    )
    magic = b"docbot-query-tokens-2\n"
    assert data.startswith(magic)
    header_length, chars, merges = struct.unpack_from("<QQQ", data, len(magic))
    header = json.loads(data[len(magic) + 24 : len(magic) + 24 + header_length])
    assert (header["chars"], chars, merges) == ("ab\u2581", 3, 2)
