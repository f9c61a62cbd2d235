"""BM25 engines behind one small interface: rank-bm25 (the reference) and tantivy (for scale).

An engine ranks the token lists it was built over; which chunks those are is the index's
business (one engine per collection set, so statistics stay scope-local).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from rank_bm25 import BM25Okapi

from retrieval.config import SearchConfig
from retrieval.engine_meta import META, best_first, meta_count, read_meta, write_meta
from retrieval.errors import IndexNotBuiltError
from retrieval.tantivy_engine import TantivyEngine

EngineKind = Literal["bm25", "tantivy"]


class Engine(Protocol):
    name: str

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """(doc position, score), best first, ties by position; docs scoring <= 0 are left out."""
        ...

    def frequencies(self, terms: Sequence[str]) -> tuple[int, list[int]]:
        """The number of documents, and how many hold each term (its document frequency)."""
        ...


def choose_engine(search: SearchConfig, chunks: int) -> EngineKind:
    """`auto` picks tantivy once a collection set outgrows rank-bm25's dense scoring."""
    if search.engine != "auto":
        return search.engine
    return "tantivy" if chunks > search.auto_threshold else "bm25"


def build_engine(
    kind: EngineKind, corpus: Sequence[Sequence[str]], directory: Path | None = None
) -> Engine:
    """An engine over `corpus` (doc position = list position), persisted in `directory` if given.

    `directory` must exist and be empty; `open_engine(directory)` reopens the engine.
    """
    if kind == "tantivy":
        return TantivyEngine.build(corpus, directory)
    engine = RankBM25Engine(corpus)
    if directory is not None:
        engine.save(directory)
    return engine


def open_engine(directory: Path) -> Engine:
    """Open an engine written by `Engine.save`; a missing, foreign or damaged folder means rebuild.

    Whatever is wrong on disk becomes IndexNotBuiltError naming the folder: an engine is
    never half-read into wrong results or a traceback.
    """
    meta = read_meta(directory)
    if meta.get("engine") == "bm25":
        return RankBM25Engine.open(directory, meta)
    if meta.get("engine") == "tantivy":
        return TantivyEngine.open(directory, meta)
    raise IndexNotBuiltError(f"{directory}: {META} names no known engine ({meta.get('engine')!r})")


# Part of every persisted engine's key: bump when an engine scores differently, so
# indexes built before are rebuilt rather than reused.
SCORING_VERSION = "2"


def _floored_idf(bm25: BM25Okapi) -> npt.NDArray[np.float64]:
    idf = np.array(list(bm25.idf.values()), dtype=np.float64)
    floor = bm25.epsilon * bm25.average_idf if bm25.average_idf > 0 else bm25.epsilon
    return np.where(idf > 0, idf, floor)


class RankBM25Engine:
    """rank-bm25's BM25Okapi (k1=1.5, b=0.75, epsilon=0.25), evaluated over postings.

    BM25Okapi computes the statistics (idf with its epsilon floor, avgdl); each posting then
    holds the term's exact float64 contribution, computed with get_scores' own expression,
    so a query sums the same numbers in the same order as get_scores: scores are equal to
    the bit, without get_scores' Python loop over every document for every query term.

    One deliberate difference: BM25Okapi leaves an idf of exactly 0 (a term in exactly half
    the documents) unfloored, and in a scope of one or two documents every idf is <= 0 and
    so is its floor, so a small private collection could never return a hit. Any idf <= 0
    takes a positive floor instead (BM25Okapi's own, epsilon x average idf, when that is
    positive, else epsilon). Everywhere BM25Okapi's idf is positive, scores are its own.
    """

    name = "bm25"

    def __init__(self, corpus: Sequence[Sequence[str]]) -> None:
        self._documents = len(corpus)
        self._terms: dict[str, int] = {}
        self._offsets = np.zeros(1, dtype=np.int64)
        self._docs = np.zeros(0, dtype=np.int32)
        self._weights = np.zeros(0, dtype=np.float64)
        if corpus and any(corpus):
            self._index(BM25Okapi([list(doc) for doc in corpus]))

    def _index(self, bm25: BM25Okapi) -> None:
        self._terms = {term: i for i, term in enumerate(bm25.idf)}
        lengths = [len(freqs) for freqs in bm25.doc_freqs]
        term_ids = np.fromiter(
            (self._terms[t] for freqs in bm25.doc_freqs for t in freqs), dtype=np.int64
        )
        freqs = np.fromiter((f for d in bm25.doc_freqs for f in d.values()), dtype=np.int64)
        docs = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        order = np.argsort(term_ids, kind="stable")  # stable: postings stay in doc order
        term_ids, freqs, docs = term_ids[order], freqs[order], docs[order]
        idf = _floored_idf(bm25)[term_ids]
        doc_len = np.array(bm25.doc_len)[docs]
        # get_scores' expression, operand for operand, so the float64 results match it.
        self._weights = idf * (
            freqs * (bm25.k1 + 1) / (freqs + bm25.k1 * (1 - bm25.b + bm25.b * doc_len / bm25.avgdl))
        )
        self._docs = docs
        counts = np.bincount(term_ids, minlength=len(self._terms))
        self._offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        found = [self._terms[t] for t in query_tokens if t in self._terms]
        if not found or k <= 0:
            return []
        scores = np.zeros(self._documents, dtype=np.float64)
        for term in found:
            start, end = self._offsets[term], self._offsets[term + 1]
            # A document appears at most once per term, so fancy-index += is exact.
            scores[self._docs[start:end]] += self._weights[start:end]
        positions = np.flatnonzero(scores > 0)
        return best_first(positions, scores[positions], k)

    def frequencies(self, terms: Sequence[str]) -> tuple[int, list[int]]:
        # A term's postings are one per document holding it.
        ids = [self._terms.get(term) for term in terms]
        counts = [0 if i is None else int(self._offsets[i + 1] - self._offsets[i]) for i in ids]
        return self._documents, counts

    def save(self, directory: Path) -> None:
        np.save(directory / "offsets.npy", self._offsets)
        np.save(directory / "docs.npy", self._docs)
        np.save(directory / "weights.npy", self._weights)
        terms = json.dumps(list(self._terms), ensure_ascii=False)
        (directory / "terms.json").write_text(terms, encoding="utf-8")
        counts = {"terms": len(self._terms), "postings": len(self._docs)}
        write_meta(directory, self.name, self._documents, **counts)

    @classmethod
    def open(cls, directory: Path, meta: dict[str, object]) -> RankBM25Engine:
        """Reopen a saved engine, refusing files that disagree with each other or with meta."""
        documents, terms_count, postings = (
            meta_count(meta, key, directory) for key in ("documents", "terms", "postings")
        )
        try:
            terms = json.loads((directory / "terms.json").read_text(encoding="utf-8"))
            # allow_pickle=False: a damaged header must not make np.load unpickle anything.
            offsets, docs, weights = (
                np.load(directory / name, allow_pickle=False)
                for name in ("offsets.npy", "docs.npy", "weights.npy")
            )
        except (OSError, ValueError, EOFError) as exc:
            raise IndexNotBuiltError(f"{directory}: unreadable bm25 engine ({exc})") from exc
        engine = cls(())
        engine._documents = documents
        if isinstance(terms, list) and all(isinstance(term, str) for term in terms):
            engine._terms = {term: i for i, term in enumerate(terms)}
        engine._offsets, engine._docs, engine._weights = offsets, docs, weights
        problem = engine._inconsistency(terms_count, postings)
        if problem:
            raise IndexNotBuiltError(f"{directory}: damaged bm25 engine ({problem})")
        return engine

    def _inconsistency(self, terms: int, postings: int) -> str:
        """What is wrong with freshly opened arrays, or "" when they fit together."""
        if len(self._terms) != terms:
            return f"terms.json holds {len(self._terms)} distinct terms, {META} says {terms}"
        shapes = (self._offsets.shape, self._docs.shape, self._weights.shape)
        if shapes != ((terms + 1,), (postings,), (postings,)):
            return f"array shapes {shapes} do not fit {terms} terms and {postings} postings"
        dtypes = (self._offsets.dtype, self._docs.dtype, self._weights.dtype)
        if dtypes != (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.float64)):
            return f"array types {dtypes} are not int64, int32, float64"
        if self._offsets[0] != 0 or self._offsets[-1] != postings:
            return "offsets do not span the postings"
        if np.any(np.diff(self._offsets) < 0):
            return "offsets are not in order"
        if postings and (self._docs.min() < 0 or self._docs.max() >= self._documents):
            return f"postings name documents outside 0..{self._documents - 1}"
        return ""
