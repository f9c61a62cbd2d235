"""fuse_queries: several searches of one scope as one ranking (reciprocal rank fusion)."""

from __future__ import annotations

from retrieval.chunks import Hit
from retrieval.fusion import fuse_queries
from tests.grounding.fakes import hits_of, make_chunk

A, B, C = (make_chunk(text, path=f"{text}.md") for text in ("alpha", "beta", "gamma"))


def test_fuse_queries_one_list_is_returned_as_it_is() -> None:
    hits = hits_of(A, B, scores=[0.9, 0.4])
    assert fuse_queries([hits], 5) == hits
    assert fuse_queries([hits], 1) == hits[:1]


def test_fuse_queries_a_chunk_both_searches_found_comes_first() -> None:
    first = hits_of(A, B, scores=[0.9, 0.5])
    second = hits_of(C, B, scores=[0.8, 0.7])
    fused = fuse_queries([first, second], 5)
    assert [h.chunk for h in fused] == [B, A, C]
    assert [h.rank for h in fused] == [1, 2, 3]


def test_fuse_queries_keeps_each_chunks_best_score_and_caps_at_k() -> None:
    fused = fuse_queries([hits_of(A, scores=[0.3]), hits_of(A, B, scores=[0.6, 0.2])], 1)
    assert fused == (Hit(A, 0.6, 1),)


def test_fuse_queries_ties_go_to_the_better_score() -> None:
    fused = fuse_queries([hits_of(A, scores=[0.2]), hits_of(B, scores=[0.7])], 5)
    assert [h.chunk for h in fused] == [B, A]
