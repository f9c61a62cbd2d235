"""The gate before the generator: when retrieval found nothing near the question, the answer is
`not_found` and the generator (the model, on the model path) is never called.

Nearness is the largest share of the query's distinct search terms that one of the best hits
holds, each term weighed by its idf in the scope (a question's rare words say more about what it
asks than its common ones). A share of the query's own total weight, it is BM25-like scoring
normalised by the query's self-score: raw BM25 scores grow with the corpus's idf, this share
means the same in a scope of 5k chunks as in one of 500k (benchmarks/gate_scale.py shows both).
Its threshold depends on which passages come back, so it is fit per search setup (engine, dense
on or off) by training/fit_gate.py on the development questions' train split and
shipped in gate_thresholds.json.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Protocol

from grounding.answer import GateVerdict
from grounding.generators.question import language
from retrieval.chunks import Hit
from retrieval.corpus import index_text
from retrieval.scopes import Scope
from retrieval.text import GATE_STOPWORDS, SEARCH

THRESHOLDS_FILE = Path(__file__).with_name("gate_thresholds.json")
GATE_HITS = 3  # the best hits whose words are compared with the query's
# Search's terms without the function words it keeps for ranking ("how", "we", "does") or the
# one-letter pieces of contractions ("what's"): in a small scope they may be in no chunk at all,
# and would then weigh the most (words.GATE_STOPWORDS).
GATE_TERMS = replace(SEARCH, stopwords=GATE_STOPWORDS, min_length=2)


class TermStats(Protocol):
    """Document frequencies in a scope; `retrieval.index.Index` conforms."""

    def frequencies(self, terms: Sequence[str], scope: Scope) -> tuple[int, list[int]]:
        """The scope's number of chunks, and how many of them hold each term."""
        ...


def idf(documents: int, frequency: int) -> float:
    """Lucene's BM25 idf, never negative; a term no chunk holds weighs the most."""
    return math.log(1.0 + (documents - frequency + 0.5) / (frequency + 0.5))


def nearness(query: str, hits: Sequence[Hit], stats: TermStats, scope: Scope) -> float:
    """The largest idf-weighted share (0 to 1) of the query's distinct search terms found in one
    of the best `GATE_HITS` hits (path, headings and text, as search reads them); 0 with no hits
    or no terms.

    In a question not in English, a word no chunk holds is most likely just a word of its own
    language (the docs are read in theirs), so only the terms the scope has are weighed: its
    identifiers, numbers and shared words."""
    return _nearness(query, _hit_terms(hits), stats, scope)


def _hit_terms(hits: Sequence[Hit]) -> list[frozenset[str]]:
    """The search terms of each of the best `GATE_HITS` hits, as search reads them."""
    return [frozenset(SEARCH(index_text(hit.chunk))) for hit in hits[:GATE_HITS]]


def _nearness(
    query: str, in_hits: Sequence[frozenset[str]], stats: TermStats, scope: Scope
) -> float:
    terms = sorted(set(GATE_TERMS(query)))
    if not terms or not in_hits:
        return 0.0
    documents, frequencies = stats.frequencies(terms, scope)
    if language(query) != "en":
        held = [(t, f) for t, f in zip(terms, frequencies, strict=True) if f > 0]
        terms, frequencies = [t for t, _ in held], [f for _, f in held]
    weights = {t: idf(documents, f) for t, f in zip(terms, frequencies, strict=True)}
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    best = max(sum(weights[t] for t in weights.keys() & terms_of) for terms_of in in_hits)
    return best / total


def setup_key(engine: str, dense: bool) -> str:
    """The search setup a threshold was fit for: `bm25`, `tantivy`, `bm25+dense`, ..."""
    return f"{engine}+dense" if dense else engine


class Gate(Protocol):
    """Decides whether the hits are near enough the queries to call the generator on."""

    def judge(self, queries: Sequence[str], scope: Scope, hits: Sequence[Hit]) -> GateVerdict:
        """`queries`: the question (with its thread) and any rewrites of it that were searched."""
        ...


class NearnessGate:
    """Opens when the hits are near the query: nearness at or above the setup's threshold.

    `setup_of(scope)` names the search setup serving a scope (the engine differs by scope
    size under `search.engine: auto`); a setup without a fitted threshold is never gated.
    Nor is a scope of fewer than `min_scope_chunks` chunks (`fitted_min_scope`): a threshold is
    not applied below the scope sizes it was fit on, where the vocabulary is too small for a
    missing word to mean much ("how long does a rollback take?" of a two-page handbook with no
    "long" or "take"); there the generator decides alone.
    """

    def __init__(
        self,
        thresholds: Mapping[str, float],
        setup_of: Callable[[Scope], str],
        stats: TermStats,
        min_scope_chunks: int,
    ) -> None:
        self._thresholds = dict(thresholds)
        self._setup_of = setup_of
        self._stats = stats
        self._min_scope_chunks = min_scope_chunks

    def judge(self, queries: Sequence[str], scope: Scope, hits: Sequence[Hit]) -> GateVerdict:
        """Near when the hits are near any of the queries: a rewrite in the docs' language
        (a translated question, a standalone follow-up) counts as much as the question."""
        threshold = self._thresholds.get(self._setup_of(scope), 0.0)
        in_hits = _hit_terms(hits)  # read once, not once per query
        score = max((_nearness(q, in_hits, self._stats, scope) for q in queries), default=0.0)
        documents, _ = self._stats.frequencies((), scope)
        return GateVerdict(
            score >= threshold or documents < self._min_scope_chunks, score, threshold
        )


def fitted_thresholds(path: Path = THRESHOLDS_FILE) -> dict[str, float]:
    """The thresholds training/fit_gate.py wrote, by search setup."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {str(key): float(value) for key, value in data["thresholds"].items()}


def fitted_min_scope(path: Path = THRESHOLDS_FILE) -> int:
    """The smallest scope (in chunks) the thresholds were fit on, as training/fit_gate.py
    wrote it: the gate closes on no smaller scope."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return int(data["min_scope_chunks"])
