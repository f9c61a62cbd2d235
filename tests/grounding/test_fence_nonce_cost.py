"""The fence nonce is unpredictable but costs the same tokens every time, so the same question on
the same index packs the same evidence on every run (a hex nonce cost 11 to 20 tokens)."""

from __future__ import annotations

from grounding.evidence import PackPolicy, pack
from grounding.untrusted import NONCE_DIGITS, evidence_block, fence_tag, new_nonce
from retrieval.chunks import Hit
from retrieval.tokens import TiktokenCounter
from tests.grounding.fakes import make_chunk, make_scope

COUNTER = TiktokenCounter()
TRIES = 300


def test_new_nonces_differ_and_make_valid_fence_tags() -> None:
    nonces = {new_nonce() for _ in range(TRIES)}
    assert len(nonces) == TRIES
    for nonce in nonces:
        assert len(nonce) == NONCE_DIGITS
        assert fence_tag(nonce).endswith(nonce)


def test_every_nonce_costs_the_same_tokens_in_a_block() -> None:
    chunk = make_chunk("Run `deploy --undo 42` to roll back.\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    costs = {COUNTER.count(evidence_block("E1", chunk, new_nonce())) for _ in range(TRIES)}
    assert len(costs) == 1, costs


def test_packing_at_the_budget_edge_is_the_same_on_every_run() -> None:
    chunks = [make_chunk(f"step {n}: " + "word " * (20 + n), path=f"{n}.md") for n in range(6)]
    hits = tuple(Hit(c, 10.0 - n, n + 1) for n, c in enumerate(chunks))
    nonce = new_nonce()
    # The budget is exactly the first three blocks as one nonce counts them: the same three fit
    # whatever nonce a later run draws, and nothing else does.
    budget = sum(COUNTER.count(evidence_block(f"E{n + 1}", chunks[n], nonce)) for n in range(3))
    policy = PackPolicy(evidence_tokens=budget, neighbours=False, per_source_limit=6)
    scope = make_scope("handbook")
    packed = {
        tuple(i.chunk.chunk_id for i in pack("q", scope, "g", hits, policy, COUNTER, nonce=n).items)
        for n in (new_nonce() for _ in range(60))
    }
    assert packed == {tuple(c.chunk_id for c in chunks[:3])}
