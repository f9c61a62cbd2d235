"""The bytes of a collection's dense vectors file: what a search reads is checked, not the rest.

Dense search scores every chunk by its vector's normalised 64-dimension prefix and then only
its shortlist (1,000 chunks) by the whole vector (retrieval/dense.py). A cold `docbot search`
used to hash the whole file (72 MB at 70k chunks) and normalise every prefix at load: 0.11 s
of ~0.65 s. So the file holds the prefixes ready, and a checksum per row of the full vectors:

    MAGIC | rows, dim, prefix dim (3 x u64) | zeros to byte 64
          | prefixes (rows x prefix dim float32, normalised) | row checksums (rows x u32)
          | sha256 of everything before it | vectors (rows x dim float32)

The container (magic, the table's sha256, the checks and the words for a damaged file) is
retrieval/record_file.py's: a whole load (`docbot serve`, which must refuse damage before using
the index) and the builder, before it reuses rows, check the whole file's sha256 against the
manifest; a scoped load (one search) checks the size and the sha256 of the part before the
vectors, then each row's crc32 when the row is read: damage to what it reads is refused, and it
hashes 19 MB and a thousand rows, not 72 MB.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np
import numpy.typing as npt

from retrieval import record_file
from retrieval.record_file import CRC32, Layout, RecordFile, RecordFileError, Shape

Vectors = npt.NDArray[np.float32]


class VectorsFileError(RecordFileError):
    """The bytes are not a vectors file this docbot writes, or what was read is damaged."""


def _shape(fields: tuple[int, ...]) -> Shape:
    rows, dim, prefix_dim = fields
    return Shape(count=rows, meta=4 * rows * prefix_dim, record=4 * dim)


LAYOUT = Layout(
    kind=b"docbot-vectors",
    version=1,
    fields=struct.Struct("<QQQ"),  # rows, dim, prefix dim
    shape=_shape,
    checksum=CRC32,
    head_damaged="its prefixes or row checksums do not match their checksum",
    record="row",
    error=VectorsFileError,
    padded=64,  # so the prefixes start aligned
)
MAGIC = LAYOUT.magic


def normalised_prefix(matrix: Vectors, dim: int) -> Vectors:
    prefix = np.array(matrix[:, :dim], dtype=np.float32)
    norms = np.linalg.norm(prefix, axis=1, keepdims=True)
    np.divide(prefix, norms, out=prefix, where=norms > 0)
    return prefix


def write(handle: BinaryIO, matrix: Vectors, prefix_dim: int) -> tuple[int, str]:
    """Write `matrix` (float32, C order) and its prefixes and row checksums to `handle`; the
    file's size and sha256."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float32).astype("<f4", copy=False)
    rows, dim = matrix.shape
    return record_file.write(
        handle,
        LAYOUT,
        (rows, dim, prefix_dim),
        normalised_prefix(matrix, prefix_dim).astype("<f4", copy=False).tobytes(),
        records=[matrix.reshape(-1).view(np.uint8).data],  # no copy
        checksums=[b"".join(map(CRC32.of, matrix))],
    )


class StoredVectors:
    """A vectors file, memory-mapped: the prefixes whole, the full vectors by row.

    `size` and `sha256`: the manifest's, checked now (the sha256 for a whole load; without it
    the part read whole now, each row when read). `verified`: the caller has checked the
    whole file already. Refused with VectorsFileError (retrieval/record_file.py)."""

    def __init__(
        self,
        path: Path,
        where: str,
        fix: str,
        *,
        verified: bool = False,
        size: int | None = None,
        sha256: str | None = None,
    ) -> None:
        data = record_file.read(path, LAYOUT, where, fix, size=size, sha256=sha256, mapped=True)
        self._file = RecordFile(data, LAYOUT, where, fix, verified=verified or sha256 is not None)
        rows, dim, prefix_dim = self._file.fields
        self.rows, self.dim = int(rows), int(dim)
        self.prefix: Vectors = np.frombuffer(
            self._file.meta, dtype="<f4", count=rows * prefix_dim
        ).reshape(rows, prefix_dim)
        self.full: Vectors = np.frombuffer(
            self._file.records, dtype="<f4", count=rows * dim
        ).reshape(rows, dim)

    def __len__(self) -> int:
        return self.rows

    def gather(self, positions: npt.NDArray[np.int64]) -> Vectors:
        """The full vectors of these rows, each checked unless the whole file was."""
        found = self.full[positions]
        if not self._file.verified:
            self._file.check_each(positions.tolist(), list(found))
        return found
