"""retrieval/fusion.py: how BM25's ranking and the dense scores become one ranking."""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.fusion import ExactScores, dense_top, reciprocal_rank, weighted

SCORES = np.array([0.1, 0.9, 0.2, 0.8, -0.3], dtype=np.float32)
DENSE = ExactScores(SCORES)
LEXICAL = [(2, 10.0), (0, 5.0), (4, 1.0)]


def test_fusion_weight_zero_keeps_bm25_order_and_adds_dense_finds_after() -> None:
    ranked = weighted(LEXICAL, DENSE, k=5, weight=0.0, depth=5)
    assert [p for p, _ in ranked] == [2, 0, 4]
    assert ranked[0][1] == 1.0 and ranked[-1][1] == 0.0


def test_fusion_weight_one_orders_the_candidates_by_dense_score() -> None:
    ranked = weighted(LEXICAL, DENSE, k=5, weight=1.0, depth=5)
    assert [p for p, _ in ranked] == [1, 3, 2, 0, 4]


def test_fusion_scores_are_min_max_normalised_sums() -> None:
    ranked = dict(weighted(LEXICAL, DENSE, k=5, weight=0.3, depth=5))
    dense = (SCORES - SCORES.min()) / (SCORES.max() - SCORES.min())
    lexical = {2: 1.0, 0: (5 - 1) / 9, 4: 0.0}
    for position, score in ranked.items():
        expected = 0.7 * lexical.get(position, 0.0) + 0.3 * dense[position]
        assert score == pytest.approx(expected, abs=1e-6)


def test_fusion_query_without_a_vector_adds_no_dense_candidates() -> None:
    ranked = weighted(LEXICAL, ExactScores(np.zeros(5, dtype=np.float32)), k=5, weight=0.5, depth=5)
    assert [p for p, _ in ranked] == [2, 0, 4]


def test_fusion_depth_limits_each_side() -> None:
    ranked = weighted(LEXICAL, DENSE, k=5, weight=0.3, depth=1)
    assert sorted(p for p, _ in ranked) == [1, 2]


def test_fusion_ties_go_to_the_earlier_position() -> None:
    flat = np.full(4, 0.5, dtype=np.float32)
    ranked = weighted([(3, 1.0), (1, 1.0)], ExactScores(flat), k=4, weight=0.3)
    assert [p for p, _ in ranked] == [1, 3]
    assert dense_top(flat, 2).tolist() == [0, 1]


def test_fusion_dense_top_is_best_first() -> None:
    assert dense_top(SCORES, 3).tolist() == [1, 3, 2]
    assert dense_top(SCORES, 10).tolist() == [1, 3, 2, 0, 4]


def test_fusion_reciprocal_rank_sums_both_ranks() -> None:
    ranked = dict(reciprocal_rank(LEXICAL, DENSE, k=5, depth=5))
    assert ranked[2] == pytest.approx(1 / 61 + 1 / 63)
    assert ranked[1] == pytest.approx(1 / 61)
