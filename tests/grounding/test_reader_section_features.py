"""The reader reads a unit with its section and its retrieval score, not in isolation.

A unit's `section_semantic` and `section_coverage` are the best similarity and word coverage
among the units of its section (same evidence item, same headings), so the sentence beside the
one that shares the question's words carries its section's match; `retrieval_score` is the
unit's item score as a share of the packet's best. The ranker's weights for them are fit by
training/train_reader.py.
"""

from __future__ import annotations

from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import UNIT_FEATURES, Reading, read
from tests.grounding.test_reader import SCOPE, chunk, packet

POOLS = """\
## Connection pools

The pool keeps idle connections open between requests for reuse.

Set `max_idle` to change it; the value is ten.

## Logging

Log lines go to standard error unless a handler is configured.
"""


def column(reading: Reading, name: str) -> list[float]:
    return [round(float(v), 6) for v in reading.units[:, UNIT_FEATURES.index(name)]]


def texts(reading: Reading) -> list[str]:
    return [c.unit.text.split()[0] for c in reading.pool]


def test_a_unit_carries_its_sections_best_coverage_and_similarity() -> None:
    question = "does the pool keep idle connections open between requests"
    reading = read(packet(question, chunk(POOLS, "pools.md")), shared_embedder())
    assert texts(reading) == ["The", "Set", "Log"]
    coverage = column(reading, "coverage")
    semantic = column(reading, "semantic")
    # The value sentence shares few of the question's words, its section's first one most.
    assert coverage[1] < coverage[0]
    assert column(reading, "section_coverage") == [coverage[0], coverage[0], coverage[2]]
    section = column(reading, "section_semantic")
    assert section[0] == section[1] == max(semantic[0], semantic[1])
    assert section[2] == semantic[2]


def test_the_same_headings_in_two_items_are_two_sections() -> None:
    question = "does the pool keep idle connections open between requests"
    first = chunk(POOLS.split("\n\nSet")[0] + "\n", "pools.md")
    second = chunk("## Connection pools\n\nSet `max_idle` to change it; the value is ten.\n")
    reading = read(packet(question, first, second), shared_embedder())
    assert texts(reading) == ["The", "Set"]
    coverage = column(reading, "coverage")
    assert column(reading, "section_coverage") == coverage


def test_retrieval_score_is_a_share_of_the_packets_best() -> None:
    reading = read(
        packet("where do log lines go", chunk(POOLS, "a.md"), chunk(POOLS, "b.md")),
        shared_embedder(),
    )
    # test_reader.packet scores its items 9, 8, ...
    assert column(reading, "retrieval_score") == [1.0] * 3 + [round(8 / 9, 6)] * 3


def test_retrieval_scores_of_zero_read_as_zero() -> None:
    items = (EvidenceItem("E1", chunk(POOLS), 0.0),)
    flat = EvidencePacket("where do log lines go", SCOPE, "gen-1", PackPolicy(), items, (), 0)
    assert column(read(flat, shared_embedder()), "retrieval_score") == [0.0] * 3
