"""A generator that reads its packet in code declares a wider packet than a model's prompt.

The `answer:` budget and per-file limit size what is sent to a model; the extractive reader asks
for more (grounding/evidence.py `PacketSize`), and the pipeline packs it that, while a model
generator keeps the configured packet.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from grounding.evidence import PacketSize, PackPolicy
from grounding.generators.base import PacketReader
from grounding.generators.extractive import PACKET_SIZE, ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from grounding.untrusted import evidence_block
from tests.grounding.fakes import (
    FakeRetriever,
    RecordingGenerator,
    WordCounter,
    insufficient,
    make_chunk,
    make_scope,
)

# Five sections of one runbook, each about restarting a worker, then one of another file.
RUNBOOK = tuple(
    make_chunk(
        f"Step {n}: restart the queue worker after the {word} check passes.",
        path="runbook.md",
        heading_path=("Runbook", f"Part {n}"),
        start_line=10 * n,
    )
    for n, word in enumerate(("disk", "memory", "network", "lock", "cache"), 1)
)
OTHER = make_chunk(
    "Restart the queue worker from the admin page.", path="admin.md", heading_path=("Admin",)
)
SCOPE = make_scope("handbook")
BLOCK = WordCounter().count(evidence_block("E1", RUNBOOK[0], ""))  # one chunk's cost, about
POLICY = PackPolicy(evidence_tokens=3 * BLOCK, per_source_limit=2, neighbours=False)


@dataclass
class ReadingGenerator(RecordingGenerator):
    """A recording generator that reads its packet itself and asks for `packet_size`."""

    packet_size: PacketSize = PACKET_SIZE


def _reader(size: PacketSize) -> ReadingGenerator:
    return ReadingGenerator([insufficient()], packet_size=size)


def _packet_paths(generator: RecordingGenerator, k: int = 12) -> list[str]:
    pipeline = AnswerPipeline(
        FakeRetriever((*RUNBOOK, OTHER)),
        generator,
        WordCounter(),
        POLICY,
        lambda chunk: None,
        k=k,
    )
    asyncio.run(pipeline.answer("restart the queue worker", SCOPE))
    return [item.chunk.path for item in generator.requests[-1].packet.items]


def test_a_model_generator_is_packed_the_configured_budget_and_per_file_limit() -> None:
    paths = _packet_paths(RecordingGenerator([insufficient()]))
    assert paths.count("runbook.md") == 2  # per_source_limit
    assert len(paths) <= 3  # the budget holds three of these chunks


def test_a_reader_is_packed_the_wider_packet_it_declares() -> None:
    reader = _reader(PacketSize(evidence_tokens=10 * BLOCK, per_source_limit=4, k=12))
    paths = _packet_paths(reader)
    assert paths.count("runbook.md") == 4
    assert "admin.md" in paths
    assert reader.requests[-1].packet.policy.evidence_tokens == 10 * BLOCK


def test_a_reader_asking_for_fewer_hits_than_configured_still_gets_the_configured() -> None:
    reader = _reader(PacketSize(evidence_tokens=10 * BLOCK, per_source_limit=4, k=1))
    assert len(_packet_paths(reader, k=12)) == 5  # k stays 12: the larger of the two wins


def test_widen_keeps_the_larger_of_config_and_declaration() -> None:
    size = PacketSize(evidence_tokens=6000, per_source_limit=3, k=24)
    wide, k = size.widen(PackPolicy(evidence_tokens=3000, per_source_limit=2), 12)
    assert (wide.evidence_tokens, wide.per_source_limit, wide.neighbours, k) == (6000, 3, True, 24)
    larger, k = size.widen(PackPolicy(evidence_tokens=9000, per_source_limit=5), 40)
    assert (larger.evidence_tokens, larger.per_source_limit, k) == (9000, 5, 40)
    solo, _ = PacketSize(1, 1, 1, neighbours=False).widen(PackPolicy(neighbours=True), 12)
    assert solo.neighbours is False


def test_the_extractive_generator_declares_its_shipped_packet() -> None:
    generator = ExtractiveGenerator()
    assert isinstance(generator, PacketReader)
    assert generator.packet_size == PACKET_SIZE
    assert not isinstance(RecordingGenerator([insufficient()]), PacketReader)
