"""The bytes of a collection's dense vectors file: what a search reads is checked, not the rest.

Dense search scores every chunk by its vector's normalised 64-dimension prefix and then only
its shortlist (1,000 chunks) by the whole vector (retrieval/dense.py). A cold `docbot search`
used to hash the whole file (72 MB at 70k chunks) and normalise every prefix at load: 0.11 s
of ~0.65 s. So the file holds the prefixes ready, and a checksum per row of the full vectors:

    MAGIC | rows, dim, prefix dim (3 x u64) | zeros to byte 64
          | prefixes (rows x prefix dim float32, normalised) | row checksums (rows x u32)
          | sha256 of everything before it | vectors (rows x dim float32)

The manifest records the whole file's size and sha256, checked by a whole load (`docbot
serve`, which must refuse damage before using the index) and by the builder before it reuses
rows. A scoped load (one search) checks the size and the sha256 of the part before the
vectors, then each row's crc32 when the row is read: damage to what it reads is refused,
and it hashes 19 MB and a thousand rows, not 72 MB. crc32 detects damage (any burst of up to
32 bits, other damage but for one in 2^32), not forgery; neither does the rest of the index.
"""

from __future__ import annotations

import hashlib
import mmap
import struct
import zlib
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from retrieval.errors import IndexNotBuiltError

Vectors = npt.NDArray[np.float32]

MAGIC = b"docbot-vectors-1\n"
_SHAPE = struct.Struct("<QQQ")
_HEADER = 64  # the prefixes start here, aligned
_SHA = 32


class VectorsFileError(IndexNotBuiltError):
    """The bytes are not a vectors file this docbot writes, or what was read is damaged."""


def normalised_prefix(matrix: Vectors, dim: int) -> Vectors:
    prefix = np.array(matrix[:, :dim], dtype=np.float32)
    norms = np.linalg.norm(prefix, axis=1, keepdims=True)
    np.divide(prefix, norms, out=prefix, where=norms > 0)
    return prefix


def _row_checksums(matrix: Vectors) -> npt.NDArray[np.uint32]:
    return np.fromiter((zlib.crc32(row) for row in matrix), dtype="<u4", count=len(matrix))


def write(handle: BinaryIO, matrix: Vectors, prefix_dim: int) -> None:
    """Write `matrix` (float32, C order) and its prefixes and row checksums to `handle`."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    rows, dim = matrix.shape
    head = hashlib.sha256()
    for part in (
        (MAGIC + _SHAPE.pack(rows, dim, prefix_dim)).ljust(_HEADER, b"\0"),
        normalised_prefix(matrix, prefix_dim).astype("<f4", copy=False).tobytes(),
        _row_checksums(matrix).tobytes(),
    ):
        head.update(part)
        handle.write(part)
    handle.write(head.digest())
    handle.write(matrix.astype("<f4", copy=False).reshape(-1).view(np.uint8).data)  # no copy


class StoredVectors:
    """A vectors file, memory-mapped: the prefixes whole, the full vectors by row.

    `verified`: the whole file matched the manifest's sha256 already, so rows are not checked
    again. Damage is refused with VectorsFileError "`where` is damaged (what): `fix`", at
    opening for the header, prefixes and checksums, when read for a row."""

    def __init__(self, path: Path, where: str, fix: str, *, verified: bool) -> None:
        self._where, self._fix, self._verified = where, fix, verified
        try:
            with path.open("rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as exc:  # ValueError: an empty file cannot be mapped
            raise VectorsFileError(f"{where} is unreadable ({exc}): {fix}") from exc
        if data[: len(MAGIC)] != MAGIC or len(data) < _HEADER:
            raise VectorsFileError(f"{where} was written by an incompatible docbot version: {fix}")
        rows, dim, prefix_dim = _SHAPE.unpack_from(data, len(MAGIC))
        prefix_at = _HEADER
        checksums_at = prefix_at + 4 * rows * prefix_dim
        vectors_at = checksums_at + 4 * rows + _SHA
        if len(data) != vectors_at + 4 * rows * dim:
            raise self._damaged("the file is cut short or too long")
        view = memoryview(data)
        if not verified and hashlib.sha256(view[: vectors_at - _SHA]).digest() != bytes(
            view[vectors_at - _SHA : vectors_at]
        ):
            raise self._damaged("its prefixes or row checksums do not match their checksum")
        self.rows, self.dim = int(rows), int(dim)
        self.prefix: Vectors = np.frombuffer(
            data, dtype="<f4", count=rows * prefix_dim, offset=prefix_at
        ).reshape(rows, prefix_dim)
        self._checksums = np.frombuffer(data, dtype="<u4", count=rows, offset=checksums_at)
        self.full: Vectors = np.frombuffer(
            data, dtype="<f4", count=rows * dim, offset=vectors_at
        ).reshape(rows, dim)

    def __len__(self) -> int:
        return self.rows

    def _damaged(self, what: str) -> VectorsFileError:
        return VectorsFileError(f"{self._where} is damaged ({what}): {self._fix}")

    def gather(self, positions: npt.NDArray[np.int64]) -> Vectors:
        """The full vectors of these rows, each checked unless the whole file was."""
        found = self.full[positions]
        if not self._verified:
            for position, row in zip(positions.tolist(), found, strict=True):
                if zlib.crc32(row) != self._checksums[position]:
                    raise self._damaged(f"row {position} does not match its checksum")
        return found
