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
import tantivy
from rank_bm25 import BM25Okapi

from retrieval.config import SearchConfig
from retrieval.errors import IndexNotBuiltError

EngineKind = Literal["bm25", "tantivy"]
_META = "engine.json"
# 2: engine.json also records the bm25 term and posting counts, checked at open.
_FORMAT = 2


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
    try:
        meta = json.loads((directory / _META).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexNotBuiltError(f"{directory}: no readable search engine ({exc})") from exc
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT:
        raise IndexNotBuiltError(f"{directory}: engine written by an incompatible docbot version")
    if meta.get("engine") == "bm25":
        return RankBM25Engine.open(directory, meta)
    if meta.get("engine") == "tantivy":
        return TantivyEngine.open(directory, _count(meta, "documents", directory))
    raise IndexNotBuiltError(f"{directory}: {_META} names no known engine ({meta.get('engine')!r})")


def _count(meta: dict[str, object], key: str, directory: Path) -> int:
    value = meta.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise IndexNotBuiltError(f"{directory}: {_META} holds no {key} count (found {value!r})")
    return value


def _write_meta(directory: Path, engine: str, documents: int, **counts: int) -> None:
    meta = {"format": _FORMAT, "engine": engine, "documents": documents, **counts}
    (directory / _META).write_text(json.dumps(meta), encoding="utf-8")


def _best_first(
    positions: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], k: int
) -> list[tuple[int, float]]:
    """The top k of positive scores, best first, equal scores in position order."""
    keep = scores > 0
    positions, scores = positions[keep], scores[keep]
    if len(scores) > k:
        # Every score tied with the k-th survives the cut, so ties resolve by position.
        threshold = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = scores >= threshold
        positions, scores = positions[keep], scores[keep]
    order = np.lexsort((positions, -scores))[:k]
    return [(int(positions[i]), float(scores[i])) for i in order]


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
        return _best_first(positions, scores[positions], k)

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
        _write_meta(directory, self.name, self._documents, **counts)

    @classmethod
    def open(cls, directory: Path, meta: dict[str, object]) -> RankBM25Engine:
        """Reopen a saved engine, refusing files that disagree with each other or with meta."""
        documents, terms_count, postings = (
            _count(meta, key, directory) for key in ("documents", "terms", "postings")
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
            return f"terms.json holds {len(self._terms)} distinct terms, {_META} says {terms}"
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


class TantivyEngine:
    """tantivy's BM25 (Lucene's: k1=1.2, b=0.75, idf ln(1+(N-df+.5)/(df+.5))).

    Documents are our tokens (never holding whitespace: `tokenize` makes them of word
    characters, dots and CJK) joined by spaces in a `whitespace`-tokenized field, queried
    with term queries: tantivy never re-tokenizes our tokens nor parses user text as syntax.
    A fast field maps tantivy's doc address back to the position in the corpus.
    """

    name = "tantivy"
    _HEAP = 256_000_000  # enough for one segment at 100k chunks, so docs stay in order

    def __init__(self, index: tantivy.Index, documents: int) -> None:
        self._index = index
        self._schema = index.schema
        self._searcher = index.searcher()
        self._documents = documents

    @staticmethod
    def _schema_for() -> tantivy.Schema:
        builder = tantivy.SchemaBuilder()
        builder.add_text_field(
            "body", stored=False, tokenizer_name="whitespace", index_option="freq"
        )
        builder.add_unsigned_field("pos", stored=False, indexed=False, fast=True)
        return builder.build()

    @classmethod
    def build(cls, corpus: Sequence[Sequence[str]], directory: Path | None = None) -> TantivyEngine:
        index = tantivy.Index(cls._schema_for(), path=None if directory is None else str(directory))
        writer = index.writer(cls._HEAP, 1)
        for position, tokens in enumerate(corpus):
            document = tantivy.Document()
            document.add_text("body", " ".join(tokens))
            document.add_unsigned("pos", position)
            writer.add_document(document)
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        if directory is not None:
            _write_meta(directory, cls.name, len(corpus))
        return cls(index, len(corpus))

    @classmethod
    def open(cls, directory: Path, documents: int) -> TantivyEngine:
        try:
            engine = cls(tantivy.Index.open(str(directory)), documents)
        except (OSError, ValueError) as exc:
            raise IndexNotBuiltError(f"{directory}: cannot open the tantivy index ({exc})") from exc
        found = engine._searcher.num_docs
        if found != documents:
            raise IndexNotBuiltError(
                f"{directory}: damaged tantivy index ({found} documents, {_META} says {documents})"
            )
        return engine

    def frequencies(self, terms: Sequence[str]) -> tuple[int, list[int]]:
        return self._documents, [self._searcher.doc_freq("body", term) for term in terms]

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        if not query_tokens or k <= 0:
            return []
        should = tantivy.Occur.Should
        query = tantivy.Query.boolean_query(
            [(should, tantivy.Query.term_query(self._schema, "body", t)) for t in query_tokens]
        )
        limit = k + 1
        while True:
            hits = self._searcher.search(query, limit, count=False).hits
            # Done once every match is in, or the last hit scores strictly below the k-th:
            # then every document tied with the k-th is among the hits, and _best_first
            # can break the tie by position whatever order tantivy collected them in.
            if len(hits) < limit or hits[-1][0] < hits[k - 1][0]:
                break
            limit *= 4
        if not hits:
            return []
        positions = self._searcher.fast_field_values("pos", [address for _, address in hits])
        return _best_first(np.array(positions, dtype=np.int64), np.array([s for s, _ in hits]), k)
