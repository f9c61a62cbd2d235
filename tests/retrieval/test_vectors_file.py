"""retrieval/vectors_file.py: prefixes stored ready, each row checked when a search reads it."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from retrieval import vectors_file
from retrieval.dense import PREFIX_DIM, open_vectors, write_vectors
from retrieval.errors import IndexNotBuiltError
from retrieval.vectors_file import StoredVectors, VectorsFileError, normalised_prefix

FIX = "run `docbot index` again"


def _matrix(rows: int = 50, dim: int = 256) -> np.ndarray:
    matrix = np.random.default_rng(7).normal(size=(rows, dim)).astype(np.float32)
    matrix[3] = 0.0  # a text without tokens: its prefix stays zero
    return matrix


def _written(tmp_path: Path, matrix: np.ndarray) -> tuple[Path, dict[str, object]]:
    path = tmp_path / "vectors" / "c.vectors"
    path.parent.mkdir(exist_ok=True)
    size, digest = write_vectors(path, matrix)
    rows, dim = matrix.shape
    return path, {"file": "vectors/c.vectors", "bytes": size, "sha256": digest} | {
        "rows": rows,
        "dim": dim,
    }


def _open(path: Path, *, verified: bool = False) -> StoredVectors:
    return StoredVectors(path, f"the dense vectors file {path}", FIX, verified=verified)


def _flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def test_the_stored_prefixes_and_rows_are_the_ones_computed_from_the_matrix(
    tmp_path: Path,
) -> None:
    matrix = _matrix()
    path, _ = _written(tmp_path, matrix)
    for verified in (True, False):
        stored = _open(path, verified=verified)
        assert len(stored) == 50 and stored.dim == 256
        assert np.array_equal(stored.prefix, normalised_prefix(matrix, PREFIX_DIM))
        assert stored.prefix.shape == (50, PREFIX_DIM) and not stored.prefix[3].any()
        positions = np.array([49, 0, 3, 17, 17], dtype=np.int64)
        assert np.array_equal(stored.gather(positions), matrix[positions])
        assert np.array_equal(stored.full, matrix)


def test_the_recorded_size_and_sha256_are_the_written_file_s(tmp_path: Path) -> None:
    path, entry = _written(tmp_path, _matrix())
    data = path.read_bytes()
    assert (entry["bytes"], entry["sha256"]) == (len(data), hashlib.sha256(data).hexdigest())


def test_an_empty_collection_and_a_model_narrower_than_the_prefix(tmp_path: Path) -> None:
    path, _ = _written(tmp_path, np.zeros((0, 256), np.float32))
    assert len(_open(path)) == 0
    narrow = _matrix(dim=32)
    path, _ = _written(tmp_path, narrow)
    assert np.array_equal(_open(path).prefix, normalised_prefix(narrow, PREFIX_DIM))


def test_a_damaged_row_is_refused_when_read_and_only_then(tmp_path: Path) -> None:
    matrix = _matrix()
    path, entry = _written(tmp_path, matrix)
    _flip(path, path.stat().st_size - 4 * 256 * (50 - 20) + 9)  # inside row 20's vector
    stored = _open(path)  # the prefixes and checksums are intact
    assert np.array_equal(stored.gather(np.array([0, 19, 21], dtype=np.int64)), matrix[[0, 19, 21]])
    with pytest.raises(
        VectorsFileError, match=r"is damaged \(row 20 does not match its checksum\)"
    ):
        stored.gather(np.array([5, 20], dtype=np.int64))
    # A whole load (docbot serve) refuses the file before using any of it.
    with pytest.raises(IndexNotBuiltError, match="has changed since docbot index wrote it"):
        open_vectors(tmp_path, entry, whole=True, fix=FIX)


@pytest.mark.parametrize("at", ["prefix", "checksums", "header", "sha256"])
def test_damage_to_what_is_read_whole_is_refused_at_opening(at: str, tmp_path: Path) -> None:
    path, entry = _written(tmp_path, _matrix())
    vectors_at = path.stat().st_size - 4 * 256 * 50
    offsets = {
        "header": len(vectors_file.MAGIC) + 30,  # in the zero padding after the shape
        "prefix": 64 + 4 * 64 * 10 + 2,
        "checksums": vectors_at - 32 - 4 * 50 + 5,
        "sha256": vectors_at - 3,
    }
    _flip(path, offsets[at])
    with pytest.raises(VectorsFileError, match=r"do not match their checksum\): run `docbot"):
        open_vectors(tmp_path, entry, whole=False, fix=FIX)


def test_a_cut_short_file_another_format_and_another_shape_are_refused(tmp_path: Path) -> None:
    path, entry = _written(tmp_path, _matrix())
    data = path.read_bytes()
    path.write_bytes(data[:-7])
    with pytest.raises(VectorsFileError, match="cut short"):
        _open(path)
    with pytest.raises(IndexNotBuiltError, match="bytes, not the"):
        open_vectors(tmp_path, entry, whole=False, fix=FIX)
    np.save(path.with_suffix(".npy"), _matrix())  # what format 6 wrote: a plain .npy
    path.with_suffix(".npy").rename(path)
    with pytest.raises(VectorsFileError, match="incompatible docbot version"):
        _open(path)
    path.write_bytes(data)
    with pytest.raises(IndexNotBuiltError, match=r"not \(50, 128\)"):
        open_vectors(tmp_path, entry | {"dim": 128}, whole=False, fix=FIX)
