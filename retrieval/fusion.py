"""Fusing the BM25 ranking of a scope with its dense scores into one ranking.

The candidates are the scope's BM25 top `depth` and its dense top `depth`; nothing outside the
scope takes part, and every normalisation is over the candidates alone, so scores stay
scope-local. A question that shares no word with the scope (BM25 finds nothing: a question in
Chinese or Spanish about English docs, a paraphrase) is ranked by its dense side alone, since
that is the only evidence there is; its scores are then at most `weight`, below the best find
of any search BM25 found something for (1 - `weight` or more; not below every such find: one
found by dense alone may outrank BM25's weakest).
Static embeddings make any two texts somewhat similar, so such hits are often unrelated:
telling is the job of the gate before the generator (grounding/gate.py: no question term in
the hits) and of the reader, which judge the packet, not of fusion, which only ranks.
Weighted score fusion and reciprocal rank fusion (`reciprocal_rank`) are compared, and the
weight fit, on a training split by benchmarks/dense_fusion.py (numbers and splits in
docs/performance-retrieval.md).

Several queries for one question (the query rewrite, grounding/rewrite.py) are fused here too:
`fuse_queries`, reciprocal rank fusion of their hit lists from the same scope. It fuses by
rank, not score: a query BM25 finds nothing for (a Spanish question beside its English rewrite)
brings its dense-only hits in at the ranks of the other query's BM25 hits. Score fusions
(CombSUM, CombMAX, lists weighted by their best score), measured against it with rewriting on,
recalled no more on train and ranked lower at 3: docs/performance-queries.md, "h3, session 8".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from retrieval.chunks import Hit

Ranked = list[tuple[int, float]]  # (position in the scope's set, score), best first

# The weight on dense scores, and how many of each side's best take part: fit by
# benchmarks/dense_fusion.py (best mean MRR@10 of SQuAD v1.1 dev's training articles among
# Django and Python docs distractors, and the development sets' train split; grid 0..1 by
# 0.05, depths 20/50/100). Held-out results in docs/performance-retrieval.md.
DENSE_WEIGHT = 0.35
DEPTH = 20
RRF_K = 60  # the usual constant of reciprocal rank fusion (Cormack et al.)


class DenseSide(Protocol):
    """A scope's dense scores for one question, by position in the scope's set."""

    def top(self, depth: int) -> npt.NDArray[np.int64]:
        """The positions of the `depth` best, best first, ties by position; none when the
        question has no vector."""
        ...

    def at(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """The exact scores of `positions`."""
        ...


class ExactScores:
    """A DenseSide over every chunk's score (benchmarks and tests; small scopes)."""

    def __init__(self, scores: npt.NDArray[np.float32]) -> None:
        self._scores = scores

    def top(self, depth: int) -> npt.NDArray[np.int64]:
        if not np.any(self._scores):
            return np.zeros(0, dtype=np.int64)
        return dense_top(self._scores, depth)

    def at(self, positions: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        return self._scores[positions]


def dense_top(scores: npt.NDArray[np.float32], depth: int) -> npt.NDArray[np.int64]:
    """Positions of the `depth` best dense scores, best first, ties by position."""
    if depth <= 0 or len(scores) == 0:
        return np.zeros(0, dtype=np.int64)
    if len(scores) > depth:
        cut = np.partition(scores, len(scores) - depth)[len(scores) - depth]
        positions = np.flatnonzero(scores >= cut)
    else:
        positions = np.arange(len(scores))
    order = np.lexsort((positions, -scores[positions]))[:depth]
    return positions[order].astype(np.int64)


def weighted(
    lexical: Ranked,
    dense: DenseSide,
    k: int,
    weight: float = DENSE_WEIGHT,
    depth: int = DEPTH,
) -> Ranked:
    """(1 - weight) x min-max(BM25) + weight x min-max(dense), over the candidates.

    A BM25 score normalises over the BM25 candidates (a candidate BM25 did not return counts
    0); a dense score over all candidates (each has an exact one). A flat side (one value)
    counts 1 for BM25's own candidates and 0 for dense, unless BM25 found nothing: then dense
    is the only side, and its flat candidates count 1. Every BM25 candidate is kept; one found
    by dense alone only if its fused score is positive. Ties go to the earlier position.
    """
    candidates, lexical_part = _candidates(lexical, dense, depth)
    if not len(candidates):
        return []
    dense_part = _min_max(dense.at(candidates), flat=0.0 if lexical else 1.0)
    fused = (1.0 - weight) * lexical_part + weight * dense_part
    # A set, not np.isin: np.isin's np.unique imports numpy.ma on first use (~0.05-0.1 s of
    # a cold `docbot search`), for a membership test over at most 2 x depth positions.
    lexical_positions = {position for position, _ in lexical[:depth]}
    from_lexical = np.fromiter(
        (position in lexical_positions for position in candidates.tolist()),
        dtype=bool,
        count=len(candidates),
    )
    keep = from_lexical | (fused > 0)
    return _best(candidates[keep], fused[keep], k)


def reciprocal_rank(lexical: Ranked, dense: DenseSide, k: int, depth: int = DEPTH) -> Ranked:
    """Sum over the two rankings of 1 / (RRF_K + rank); for comparison with `weighted`."""
    scores: dict[int, float] = {}
    for rank, (position, _) in enumerate(lexical[:depth], 1):
        scores[position] = scores.get(position, 0.0) + 1.0 / (RRF_K + rank)
    for rank, position in enumerate(dense.top(depth).tolist(), 1):
        scores[position] = scores.get(position, 0.0) + 1.0 / (RRF_K + rank)
    positions = np.array(list(scores), dtype=np.int64)
    return _best(positions, np.array(list(scores.values()), dtype=np.float64), k)


def _candidates(
    lexical: Ranked, dense: DenseSide, depth: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The candidate positions, sorted, and their min-max normalised BM25 scores."""
    lexical = lexical[:depth]
    found = {position: score for position, score in lexical}
    for position in dense.top(depth).tolist():
        found.setdefault(position, np.nan)
    positions = np.array(sorted(found), dtype=np.int64)
    raw = np.array([found[p] for p in positions.tolist()], dtype=np.float64)
    known = ~np.isnan(raw)
    normalised = np.zeros(len(raw), dtype=np.float64)
    if known.any():
        normalised[known] = _min_max(raw[known], flat=1.0)
    return positions, normalised


def _min_max(values: npt.NDArray[Any], flat: float) -> npt.NDArray[np.float64]:
    wide = values.astype(np.float64)
    low, high = float(wide.min()), float(wide.max())
    if high - low <= 0:
        return np.full(len(wide), flat, dtype=np.float64)
    normalised: npt.NDArray[np.float64] = (wide - low) / (high - low)
    return normalised


def _best(positions: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], k: int) -> Ranked:
    order = np.lexsort((positions, -scores))[: max(k, 0)]
    return [(int(positions[i]), float(scores[i])) for i in order]


def fuse_queries(lists: Sequence[Sequence[Hit]], k: int) -> tuple[Hit, ...]:
    """The hits of several searches of one scope as one ranking: reciprocal rank fusion by chunk.

    Each chunk keeps the best score any search gave it, so a score means what it means for one
    search (answer.min_score, thresholds); ties go to that score, then to the earlier search and
    rank. One list is returned as it is: a question searched once ranks exactly as before.
    """
    if len(lists) == 1:
        return tuple(lists[0][: max(k, 0)])
    fused: dict[str, float] = {}
    best: dict[str, Hit] = {}
    order: dict[str, int] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, 1):
            key = hit.chunk.chunk_id
            fused[key] = fused.get(key, 0.0) + 1.0 / (RRF_K + rank)
            order.setdefault(key, len(order))
            if key not in best or hit.score > best[key].score:
                best[key] = hit
    ranked = sorted(fused, key=lambda key: (-fused[key], -best[key].score, order[key]))
    return tuple(
        Hit(best[key].chunk, best[key].score, rank)
        for rank, key in enumerate(ranked[: max(k, 0)], 1)
    )
