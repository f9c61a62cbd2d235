"""The search index: built from the collections, loaded, and searched one scope at a time.

Each scope is ranked by BM25 and, unless `retrieval.dense` is false, by dense vectors too,
fused into one ranking (retrieval/fusion.py). Files on disk: retrieval/manifest.py; the
vectors: retrieval/dense.py; the BM25 engines: retrieval/engines.py.

Scope-local statistics (design.md, Scope rule 2). BM25's idf and average length are computed
over a whole engine, so an engine shared by two scopes would let one scope's documents move
the other's scores. Each engine therefore serves exactly one *collection set*: the public
collections, or the public ones plus the private collections one channel may read. A scope's
results then depend on its own documents only, to the bit. `collection_sets` enumerates the
sets the config can produce (usually few: one per distinct channel grant); a set not built
(the config changed since indexing) is built in memory on first use and kept.
With tantivy, a set's engine is composed of one part per collection (retrieval/tantivy_engine.py):
each collection is indexed once and its segment files are linked into every set holding it,
so a public edit re-indexes the public collection once, not once per set. The small bm25
sets are built whole: public chunks are indexed again in each of them.
Dense vectors need no such copies: a chunk's vector depends on its own text only, so they are
stored once per collection, and fusion normalises within the scope's own candidates.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from retrieval.artifact import load_root
from retrieval.chunks import Chunk, Hit, first_headings
from retrieval.config import Config
from retrieval.corpus import collection_sets, index_text, set_chunks
from retrieval.dense import DenseScorer
from retrieval.embeddings import Embedder, load_embedder
from retrieval.engines import Engine, build_engine, choose_engine
from retrieval.errors import IndexNotBuiltError
from retrieval.fusion import DEPTH, DenseSide, ExactScores, Ranked, weighted
from retrieval.index_files import load_snapshots, open_engines, open_vectors, to_read
from retrieval.manifest import index_root, read_manifest, run_index
from retrieval.query_tokens import question_embedder
from retrieval.scopes import Scope, check_exclusive_files
from retrieval.snapshot_file import Concatenated, StoredSnapshot
from retrieval.text import tokenize

if TYPE_CHECKING:
    from retrieval.build import (
        BuildReport,
        CollectionReport,
        Progress,
        Written,
        build_index,
        write_index,
    )

# Re-exported: the CLI, the bot and the benchmarks import the index's whole API from here.
__all__ = [
    "BuildReport",
    "CollectionReport",
    "Index",
    "Progress",
    "Written",
    "build_index",
    "collection_sets",
    "index_root",
    "index_text",
    "run_index",
    "set_chunks",
    "write_index",
]
_FROM_BUILD = frozenset(
    ("BuildReport", "CollectionReport", "Progress", "Written", "build_index", "write_index")
)


def __getattr__(name: str) -> Any:
    """The builder's names, imported on first use: loading and searching never need the
    builder, whose source sync imports aiohttp, git and the HTML reader (~0.15 s of a cold
    `docbot search`)."""
    if name in _FROM_BUILD:
        import retrieval.build

        return getattr(retrieval.build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Index:
    """The loaded index; conforms to grounding.retriever.Retriever. Safe to share by threads."""

    def __init__(
        self,
        config: Config,
        generation: str,
        snapshots: Mapping[str, StoredSnapshot],
        engines: Mapping[tuple[str, ...], Engine],
        dense: DenseScorer | None = None,
        *,
        partial: bool = False,
    ) -> None:
        """`partial`: the snapshots are the collections one scope asked for, not all of the
        config's (`load(collections=...)`)."""
        self._config = config
        self._generation = generation
        self._snapshots = dict(snapshots)
        self._engines = dict(engines)
        self._dense = dense
        self._partial = partial
        # A set's chunks by position, each built from its snapshot file when first read.
        self._chunks: dict[tuple[str, ...], Sequence[Chunk]] = {}
        self._listed: dict[tuple[str, ...], tuple[Chunk, ...]] = {}  # `chunks`: all built
        self._headings: dict[str, tuple[str, ...]] = {}  # `top_level_headings`, by collection
        self._lock = threading.Lock()

    @classmethod
    def load(
        cls,
        config: Config,
        embedder: Embedder | None = None,
        *,
        collections: Sequence[str] | None = None,
    ) -> Index:
        """Open what `build_index` wrote for this config (or, with `index_dir`, the version
        published there); IndexNotBuiltError if absent, stale or any file it reads is damaged.

        With `retrieval.dense`, `embedder` (default `load_embedder()`) embeds the questions and
        must be the model the vectors were made with.

        `collections` (a scope's, for one command-line search) reads those collections'
        snapshots, engines and vectors only: the other collections' files are never opened,
        so neither their cost nor their damage reaches this scope. The Index then serves
        scopes within those collections only. `docbot serve` loads everything.
        """
        root = load_root(config)
        manifest = read_manifest(root)
        wanted = None if collections is None else frozenset(collections)
        try:
            entries = {entry["name"]: entry for entry in manifest["collections"]}
            names = to_read(config, wanted)
            snapshots = load_snapshots(root, config, entries, names, whole=wanted is None)
            # Again at load: the config may have changed readers since the index was built.
            check_exclusive_files(
                config, {name: [r.path for r in snap.files] for name, snap in snapshots.items()}
            )
            if wanted is not None:
                # Read only to check that no file is shared with a wanted collection.
                snapshots = {name: snap for name, snap in snapshots.items() if name in wanted}
            engines = open_engines(root, manifest["sets"], snapshots)
            dense = None
            if config.retrieval.dense:
                embedder = question_embedder(
                    root,
                    manifest.get("query_tokens"),
                    embedder if embedder is not None else load_embedder(),
                    run_index("again"),
                )
                dense = open_vectors(root, entries, snapshots, embedder, whole=wanted is None)
            generation = str(manifest["generation"])
            return cls(config, generation, snapshots, engines, dense, partial=wanted is not None)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise IndexNotBuiltError(
                f"the index in {root} is damaged ({exc!r}): {run_index('again')}"
            ) from exc

    @property
    def generation(self) -> str:
        return self._generation

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        """The top `k` chunks of the scope; only the chunks of `scope.collections` are scored.

        Scores are BM25's, or with dense vectors the fused score in [0, 1].
        """
        if scope.is_empty or k <= 0:
            return ()
        _, chunks = self._engine_for(scope.collections)
        lexical, dense = self.candidates(query, scope, max(k, DEPTH))
        ranked = lexical[:k] if dense is None else weighted(lexical, dense, k)
        return tuple(
            Hit(chunks[position], score, rank) for rank, (position, score) in enumerate(ranked, 1)
        )

    def candidates(self, query: str, scope: Scope, depth: int) -> tuple[Ranked, DenseSide | None]:
        """What fusion starts from: the scope's BM25 top `depth`, and its dense side (None
        without dense vectors), both by position in the scope's set."""
        if scope.is_empty:
            return [], None if self._dense is None else ExactScores(np.zeros(0, np.float32))
        engine, _ = self._engine_for(scope.collections)
        lexical = engine.top_k(tokenize(query), depth)
        if self._dense is None:
            return lexical, None
        names = tuple(sorted(set(scope.collections)))
        return lexical, self._dense.side(names, self._dense.embed_query(query))

    def frequencies(self, terms: Sequence[str], scope: Scope) -> tuple[int, list[int]]:
        """The scope's number of chunks, and how many of them hold each (search) term."""
        if scope.is_empty:
            return 0, [0] * len(terms)
        engine, _ = self._engine_for(scope.collections)
        return engine.frequencies(terms)

    def chunks(self, scope: Scope) -> tuple[Chunk, ...]:
        """The chunks of `scope` by position: what `candidates`' positions point at."""
        if scope.is_empty:
            return ()
        key = tuple(sorted(set(scope.collections)))
        chunks = self._engine_for(key)[1]
        with self._lock:
            if key not in self._listed:
                self._listed[key] = tuple(chunks)
            return self._listed[key]

    def top_level_headings(self, collection: str) -> tuple[str, ...]:
        """The distinct top-level headings of `collection`'s chunks in index order, worked out
        once per load: a new assistant thread's suggested prompts (grounding.retriever's
        `top_headings`) no longer walk every chunk of its scope (100k chunks: see
        docs/performance-loading.md "h9, session 8")."""
        self._check_loaded((collection,))
        with self._lock:
            known = self._headings.get(collection)
        if known is None:  # two threads may both work it out: the same headings
            known = first_headings(self._snapshots[collection].chunks)
            with self._lock:
                self._headings[collection] = known
        return known

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        """The chunks before and after `chunk` in its file. Only that file's chunks are read
        (built from its collection's snapshot file): an answer's neighbours no longer build
        every chunk of every collection (100k chunks, 0.5 s) for one channel's few hits."""
        stored = self._snapshots.get(chunk.collection)
        span = None if stored is None else stored.file_span(chunk.path)
        if stored is None or span is None:
            return None, None
        first, end = span
        chunks = stored.chunk_range(first, end)
        at = next((i for i, c in enumerate(chunks) if c.chunk_id == chunk.chunk_id), None)
        if at is None:
            return None, None
        before = chunks[at - 1] if at > 0 else None
        return before, (chunks[at + 1] if at + 1 < len(chunks) else None)

    def revisions(self) -> dict[str, str]:
        """The source revision (git commit) of each collection that has one."""
        return {
            name: stored.snapshot.revision
            for name, stored in self._snapshots.items()
            if stored.snapshot.revision
        }

    def collections(self) -> dict[str, tuple[int, int]]:
        return {
            name: (len(snapshot.files), snapshot.chunk_count)
            for name, snapshot in self._snapshots.items()
        }

    def built(self) -> dict[str, int]:
        """How many chunks of each loaded collection have been built from its snapshot file
        so far: what searches and neighbour lookups have read (benchmarks/scoped_reads.py)."""
        return {name: stored.built for name, stored in self._snapshots.items()}

    def engine_name(self, scope: Scope) -> str:
        """The BM25 engine serving `scope` ("none" for an empty one)."""
        if scope.is_empty:
            return "none"
        return self._engine_for(scope.collections)[0].name

    @property
    def dense_model(self) -> str | None:
        """The embedding model fused with BM25, or None when search is BM25 alone."""
        return None if self._dense is None else self._dense.model

    def _engine_for(self, names: tuple[str, ...]) -> tuple[Engine, Sequence[Chunk]]:
        self._check_loaded(names)
        key = tuple(sorted(set(names)))
        with self._lock:
            if key not in self._chunks:  # set_chunks order: collections by name, files by path
                self._chunks[key] = Concatenated([self._snapshots[name].chunks for name in key])
            if key not in self._engines:
                self._engines[key] = self._build_in_memory(key)
            return self._engines[key], self._chunks[key]

    def _check_loaded(self, names: tuple[str, ...]) -> None:
        missing = [name for name in names if name not in self._snapshots]
        if missing and self._partial:
            # A caller's mistake, not the index's: it loaded fewer collections than it searches.
            raise ValueError(
                f"collection(s) {', '.join(missing)} were not loaded: this index was loaded "
                f"for {', '.join(sorted(self._snapshots))} only (Index.load(collections=...))"
            )
        if missing:
            raise IndexNotBuiltError(
                f"collection(s) {', '.join(missing)} are not in the index: "
                f"{run_index('to add them')}"
            )

    def _build_in_memory(self, names: tuple[str, ...]) -> Engine:
        """A set the build did not enumerate (the config changed since): built once, kept."""
        chunks = self._chunks[names]
        kind = choose_engine(self._config.search, len(chunks))
        return build_engine(kind, [tokenize(index_text(chunk)) for chunk in chunks])
