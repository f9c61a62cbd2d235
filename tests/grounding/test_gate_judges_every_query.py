"""The gate's verdict scores the question and each of its rewrites on the same hits: its nearness
is the best of theirs, a Spanish question's (only the scope's own words weighed) included."""

from __future__ import annotations

from grounding.gate import NearnessGate, nearness
from tests.grounding.test_gate import DEPLOY, ROTATE, SCOPE, ChunkStats, _hits

QUERIES = (
    "¿cómo hago rotate de la key de payments?",
    "how do we rotate the payments key?",
    "tallest mountain in Africa, main peak?",
)


def test_the_verdict_is_the_best_nearness_of_the_queries() -> None:
    stats = ChunkStats([ROTATE, DEPLOY])
    hits = _hits(ROTATE, DEPLOY)
    gate = NearnessGate({"fake": 0.5}, lambda scope: "fake", stats, 0)
    each = [nearness(q, hits, stats, SCOPE) for q in QUERIES]
    assert each[0] > 0.9  # rotate, key, payments: the scope's own words, all in one hit
    verdict = gate.judge(QUERIES, SCOPE, hits)
    assert verdict.nearness == max(each)
    assert gate.judge(QUERIES[:1], SCOPE, hits).nearness == each[0]
    assert gate.judge(QUERIES[2:], SCOPE, hits).nearness == each[2] < verdict.nearness
