"""training/packet_losses.py tells where a right chunk was lost from the reasons the real packing
gave (grounding/evidence.py `pack`) and its ranks at each search depth."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from retrieval.chunks import Chunk, Hit
from retrieval.tokens import TiktokenCounter
from tests.grounding.test_reader import SCOPE, chunk
from training.packet_losses import DEPTHS, classify

RIGHT = chunk("Requests time out after five seconds of network inactivity.", "timeouts.md", "T")
OTHERS = [
    chunk(f"Section {i} of the guide says how clients pool their connections.", "guide.md", f"S{i}")
    for i in range(3)
]
FOUND = dict.fromkeys(DEPTHS, 3)  # a right chunk within the top 20 (and so 50, 100)


def right(c: Chunk) -> bool:
    return c.path == "timeouts.md"


def packed_from(chunks: list[Chunk], policy: PackPolicy) -> tuple[list[Hit], EvidencePacket]:
    hits = [Hit(c, 10.0 - i, i + 1) for i, c in enumerate(chunks)]
    return hits, pack("q", SCOPE, "gen-1", hits, policy, TiktokenCounter())


def test_a_right_chunk_cut_by_the_per_file_limit_or_the_budget_says_so() -> None:
    same_file = [
        chunk(f"Timeouts, part {i}: pools and limits.", "timeouts.md", "T") for i in range(2)
    ]
    limited = PackPolicy(per_source_limit=2, neighbours=False)
    hits, packet = packed_from([*same_file, RIGHT], limited)
    assert classify(FOUND, packet, hits, lambda c: c is RIGHT) == "per_source_limit"
    one_block = TiktokenCounter().count(OTHERS[0].text) + 40
    tight = PackPolicy(evidence_tokens=one_block, neighbours=False)
    hits, packet = packed_from([OTHERS[0], RIGHT], tight)
    assert classify(FOUND, packet, hits, right) == "budget"


def test_a_right_chunk_packed_or_never_a_hit_is_placed_by_its_ranks() -> None:
    hits, packet = packed_from([*OTHERS, RIGHT], PackPolicy(neighbours=False))
    assert classify(FOUND, packet, hits, right) == "packed, split by units"
    hits, packet = packed_from(OTHERS, PackPolicy(neighbours=False))
    assert classify(FOUND, packet, hits, right) == "below the cut (top 20)"
    assert classify({20: None, 50: 31, 100: 30}, packet, hits, right) == "in top 50, not top 20"
    assert classify({20: None, 50: None, 100: 70}, packet, hits, right) == "in top 100, not top 50"
    assert classify(dict.fromkeys(DEPTHS), packet, hits, right) == "not in top 100"
    assert classify(FOUND, None, hits, right) == "no packet"
