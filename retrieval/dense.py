"""Dense vectors beside BM25: one float32 matrix per collection, a row per chunk in file order.

Scope rule (design.md, rule 2) holds without per-set copies: a chunk's vector depends on its
own text alone, and a scope is scored over its own collections' matrices only, so a private
collection changes nothing in another scope's dense scores (fusion, too, normalises within
the scope's own candidates: retrieval/fusion.py).

Cache: a row's key is the sha256 of the text embedded (`index_text`: the chunk's text with its
path and headings). A build first reuses a collection's whole file when its content and the
model are unchanged; otherwise an unchanged file's rows are copied by position, and every
other chunk takes the row whose key the previous build's vectors hold (made by the same
model), so an unchanged chunk is never embedded twice; only new or changed chunks reach the
embedder.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from retrieval import vectors_file
from retrieval.chunks import Chunk
from retrieval.collections import CollectionSnapshot
from retrieval.corpus import index_text
from retrieval.durable import write_atomically_from
from retrieval.embeddings import Embedder, Vectors
from retrieval.errors import DocbotError, IndexNotBuiltError

# Texts handed to the embedder at once: also how often the progress callback is called.
EMBED_BATCH = 1024
Progress = Callable[[int], None]  # called with the number of chunks just embedded


def vector_key(chunk: Chunk) -> bytes:
    return hashlib.sha256(index_text(chunk).encode("utf-8")).digest()


def model_tag(embedder: Embedder) -> str:
    """A short, file-name-safe tag of the model: part of every vectors file's name."""
    return hashlib.sha256(f"{embedder.name}\0{embedder.dim}".encode()).hexdigest()[:10]


class VectorCache:
    """The rows the previous build stored (only matrices of the current model): a file carried
    over unchanged into a new snapshot (its `chunks` the very object the previous snapshot
    held) takes its rows by position, without its chunks being built or hashed; any other
    chunk takes the row of a previous chunk with the same text (vector_key), if any."""

    def __init__(
        self,
        previous: Sequence[tuple[CollectionSnapshot, Vectors]],
        current: Sequence[CollectionSnapshot],
    ) -> None:
        carried = {id(record.chunks) for snapshot in current for record in snapshot.files}
        self._files: dict[int, tuple[Sequence[Chunk], Vectors, int]] = {}
        self._others: list[tuple[Sequence[Chunk], Vectors, int]] = []  # keyed when first asked
        self._rows: dict[bytes, tuple[Vectors, int]] | None = None
        for snapshot, matrix in previous:
            if len(matrix) != snapshot.chunk_count:
                continue  # not this snapshot's rows: nothing to take from it
            row = 0
            for record in snapshot.files:
                held = (record.chunks, matrix, row)
                if id(record.chunks) in carried:
                    self._files[id(record.chunks)] = held
                else:
                    self._others.append(held)
                row += len(record.chunks)

    def file_rows(self, chunks: Sequence[Chunk]) -> Vectors | None:
        """The previous rows of a file's chunks carried over as they were, else None."""
        found = self._files.get(id(chunks))
        if found is None or found[0] is not chunks:
            return None
        _, matrix, row = found
        return matrix[row : row + len(chunks)]

    def get(self, key: bytes) -> npt.NDArray[np.float32] | None:
        if self._rows is None:
            self._rows = {}
            for chunks, matrix, row in self._others:
                for offset, chunk in enumerate(chunks):
                    self._rows.setdefault(vector_key(chunk), (matrix, row + offset))
        found = self._rows.get(key)
        return None if found is None else found[0][found[1]]


@dataclass(frozen=True, slots=True)
class Plan:
    """One collection's matrix with its cached rows filled, the rows still to embed and
    their chunks (`pending[i]` is row `missing[i]`'s)."""

    matrix: Vectors
    missing: list[int]
    pending: list[Chunk]


def plan_vectors(snapshot: CollectionSnapshot, dim: int, cache: VectorCache) -> Plan:
    matrix = np.zeros((snapshot.chunk_count, dim), dtype=np.float32)
    missing: list[int] = []
    pending: list[Chunk] = []
    row = 0
    for record in snapshot.files:
        count = len(record.chunks)
        kept = cache.file_rows(record.chunks)
        if kept is not None and kept.shape == (count, dim):
            matrix[row : row + count] = kept
        else:
            for offset, chunk in enumerate(record.chunks):
                found = cache.get(vector_key(chunk))
                if found is None or found.shape != (dim,):
                    missing.append(row + offset)
                    pending.append(chunk)
                else:
                    matrix[row + offset] = found
        row += count
    return Plan(matrix, missing, pending)


def fill(plan: Plan, embedder: Embedder, progress: Progress | None = None) -> Vectors:
    """Embed the plan's missing rows, a batch at a time; the finished matrix."""
    for start in range(0, len(plan.missing), EMBED_BATCH):
        rows = plan.missing[start : start + EMBED_BATCH]
        texts = [index_text(chunk) for chunk in plan.pending[start : start + EMBED_BATCH]]
        vectors = embedder.embed(texts)
        if vectors.shape != (len(rows), plan.matrix.shape[1]):
            raise DocbotError(
                f"the embedding model {embedder.name!r} returned vectors of shape "
                f"{vectors.shape} for {len(rows)} texts, not ({len(rows)}, "
                f"{plan.matrix.shape[1]}): a broken model install; reinstall docbot, or set "
                "`retrieval: {dense: false}` in docbot.yml"
            )
        plan.matrix[rows] = vectors
        if progress is not None:
            progress(len(rows))
    return plan.matrix


def write_vectors(path: Path, matrix: Vectors) -> tuple[int, str]:
    """Store `matrix` durably (retrieval/vectors_file.py); its size and sha256 for the manifest."""
    prefix_dim = min(PREFIX_DIM, matrix.shape[1])
    # Hashed as written, not read back.
    return write_atomically_from(path, lambda h: vectors_file.write(h, matrix, prefix_dim))


# Dense search reads a 64-dimension prefix of every vector (the model is trained so its first
# 64 dimensions are a model of their own), takes the SHORTLIST best, and scores those with all
# 256: a quarter of the memory traffic per question, which is what brute force pays for.
PREFIX_DIM = 64
SHORTLIST = 1000


class VectorBlock(Protocol):
    """One collection's vectors as a search reads them: every prefix, some full rows."""

    @property
    def prefix(self) -> Vectors:
        """(rows, min(PREFIX_DIM, dim)) float32, each row L2-normalised (a zero row stays
        zero)."""
        ...

    def __len__(self) -> int: ...

    def gather(self, positions: npt.NDArray[np.int64]) -> Vectors:
        """The full vectors of these rows."""
        ...


class InMemoryVectors:
    """A VectorBlock over a matrix in memory (its prefixes computed here)."""

    def __init__(self, matrix: Vectors) -> None:
        self._matrix = matrix
        self.prefix = vectors_file.normalised_prefix(matrix, PREFIX_DIM)

    def __len__(self) -> int:
        return len(self._matrix)

    def gather(self, positions: npt.NDArray[np.int64]) -> Vectors:
        return self._matrix[positions]


def open_vectors(
    root: Path, entry: Mapping[str, Any], *, whole: bool, fix: str
) -> vectors_file.StoredVectors:
    """The vectors file a manifest entry names, of its recorded size and shape; IndexNotBuiltError
    if not (a VectorsFileError's message ends with `fix`). `whole`: its sha256 is checked now
    (a long-lived load); otherwise the part read whole (prefixes, row checksums) now and each
    full row when read."""
    path = root / str(entry["file"])
    rows, dim = int(entry["rows"]), int(entry["dim"])
    stored = vectors_file.StoredVectors(
        path,
        f"the dense vectors file {path}",
        fix,
        size=int(entry["bytes"]),
        sha256=str(entry["sha256"]) if whole else None,
    )
    prefix_dim = min(PREFIX_DIM, dim)
    if (stored.rows, stored.dim, stored.prefix.shape[1]) != (rows, dim, prefix_dim):
        raise IndexNotBuiltError(
            f"{path}: vectors of ({stored.rows}, {stored.dim}) with {stored.prefix.shape[1]}-"
            f"dimension prefixes, not ({rows}, {dim}) with {prefix_dim}"
        )
    return stored


def read_entry(root: Path, file: str, entry: Mapping[str, Any]) -> Vectors:
    """The full matrix a manifest entry recorded (checked whole: the builder reuses its rows),
    memory-mapped; IndexNotBuiltError if it differs."""
    return open_vectors(root, dict(entry, file=file), whole=True, fix="it is embedded again").full


class DenseScorer:
    """Dense scores of questions against the chunks of a set of collections, in set order."""

    def __init__(self, embedder: Embedder, blocks: Mapping[str, VectorBlock]) -> None:
        self._embedder = embedder
        self._blocks = dict(blocks)

    @property
    def model(self) -> str:
        return self._embedder.name

    def embed_query(self, query: str) -> npt.NDArray[np.float32]:
        vector: npt.NDArray[np.float32] = self._embedder.embed([query])[0]
        return vector

    def side(self, names: Sequence[str], query: npt.NDArray[np.float32]) -> ShortlistScores:
        """The dense side of fusion for the chunks of `names` (collections by name)."""
        return ShortlistScores([self._blocks[name] for name in sorted(names)], query)


class ShortlistScores:
    """fusion.DenseSide: best by the prefix, exact scores from the full vectors.

    One per question (not shared by threads): the ranked shortlist is computed once.
    """

    def __init__(
        self,
        blocks: Sequence[VectorBlock],
        query: Vectors,
        shortlist: int = SHORTLIST,
    ) -> None:
        """`blocks`: the vectors of each collection, in set order."""
        self._blocks = list(blocks)
        self._query = query
        self._shortlist = shortlist
        self._ranked: npt.NDArray[np.int64] | None = None
        self._offsets = np.cumsum([0] + [len(block) for block in self._blocks])

    @property
    def size(self) -> int:
        """How many chunks the scope holds."""
        return int(self._offsets[-1])

    def top(self, depth: int) -> npt.NDArray[np.int64]:
        if depth <= 0:
            return np.zeros(0, dtype=np.int64)
        if self._ranked is None:
            self._ranked = self._rank_shortlist()
        return self._ranked[:depth]

    def _rank_shortlist(self) -> npt.NDArray[np.int64]:
        """The shortlist by exact score, best first, ties by position (computed once)."""
        if not self._blocks or not np.any(self._query):
            return np.zeros(0, dtype=np.int64)
        prefix = self._query[:PREFIX_DIM]
        norm = float(np.linalg.norm(prefix))
        rough = np.concatenate([block.prefix @ (prefix / norm) for block in self._blocks])
        if len(rough) > self._shortlist:
            cut = np.partition(rough, len(rough) - self._shortlist)[len(rough) - self._shortlist]
            shortlist = np.flatnonzero(rough >= cut)  # ties at the cut all stay: deterministic
        else:
            shortlist = np.arange(len(rough))
        exact = self.at(shortlist.astype(np.int64))
        return shortlist[np.lexsort((shortlist, -exact))].astype(np.int64)

    def at(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        out = np.zeros(len(positions), dtype=np.float32)
        block = np.searchsorted(self._offsets, positions, side="right") - 1
        for b, vectors in enumerate(self._blocks):
            mine = np.flatnonzero(block == b)
            if len(mine):
                out[mine] = vectors.gather(positions[mine] - self._offsets[b]) @ self._query
        return out
