"""The reader's labelled data for training/train_reader.py: each question's packet from the real
index and pipeline, read by the real reader features, and its units labelled right or not.

- the `train` split of docbot's development questions (`benchmarks/questions/`): a unit is right
  when it holds an expected string inside an expected file; the `test` split is never read;
- SQuAD v2.0 dev (`../shared/eval/squad/dev-v2.0.json`): all its questions (or a seeded
  sample) over its paragraphs (one file each); a unit is right when it holds a gold answer text
  inside the gold paragraph.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks.answer_quality import collection_config, squad_cases
from benchmarks.dev_questions import SETS, corpus_config, load_questions, pipeline_for
from grounding.evidence import EvidencePacket, PacketSize
from grounding.generators.base import Generation, GenerationRequest
from grounding.generators.extractive import INSUFFICIENT_MESSAGE, PACKET_SIZE
from grounding.generators.reading import ReaderEmbedder, Reading, read
from grounding.retriever import Retriever
from grounding.schema import GroundedResponse
from retrieval.config import Config
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope

REPO = Path(__file__).resolve().parents[1]
SQUAD_V2 = REPO / ".." / "shared" / "eval" / "squad" / "dev-v2.0.json"


@dataclass(frozen=True, slots=True)
class Example:
    source: str  # squad | docs
    question: str
    answerable: bool
    paths: tuple[str, ...]  # files a right unit is in
    strings: tuple[str, ...]  # a right unit holds one of these


@dataclass
class Read:
    example: Example
    reading: Reading
    labels: npt.NDArray[np.float64]  # per unit: holds the answer


class _Recorder:
    """A generator that keeps each packet and answers nothing: training needs packets only.
    It asks for the packet the extractive generator reads (`packet_size`), so the reader is fit
    on the packets it will be given."""

    def __init__(self, packet_size: PacketSize) -> None:
        self.packets: list[EvidencePacket | None] = []
        self._packet_size = packet_size

    @property
    def name(self) -> str:
        return "recorder"

    @property
    def packet_size(self) -> PacketSize:
        return self._packet_size

    async def generate(self, request: GenerationRequest) -> Generation:
        self.packets[-1] = request.packet
        response = GroundedResponse(
            status="insufficient_context", claims=[], message=INSUFFICIENT_MESSAGE
        )
        return Generation(response=response)


def packets(
    config: Config,
    questions: Sequence[str],
    packet_size: PacketSize = PACKET_SIZE,
    retriever: Callable[[Index], Retriever] = lambda index: index,
) -> list[EvidencePacket | None]:
    """Each question's packet (None when nothing was packed or the gate answered);
    `retriever` wraps the index (training/packet_sweep.py reweighs its fusion)."""
    build_index(config)
    recorder = _Recorder(packet_size)
    pipeline = pipeline_for(config, recorder, retriever)
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)

    async def run() -> None:
        for question in questions:
            recorder.packets.append(None)
            await pipeline.answer(question, scope)

    asyncio.run(run())
    return recorder.packets


def norm(text: str) -> str:
    """Lowercase with whitespace collapsed: how a unit is matched against expected strings."""
    return " ".join(text.lower().split())


def labelled(example: Example, packet: EvidencePacket, embedder: ReaderEmbedder) -> Read:
    reading = read(packet, embedder)
    strings = [norm(s) for s in example.strings]
    labels = np.array(
        [
            float(
                c.item.chunk.path in example.paths and any(s in norm(c.unit.text) for s in strings)
            )
            for c in reading.pool
        ]
    )
    return Read(example, reading, labels)


def docs_reads(
    corpus: str,
    state: Path,
    embedder: ReaderEmbedder,
    packet_size: PacketSize = PACKET_SIZE,
    retriever: Callable[[Index], Retriever] = lambda index: index,
) -> list[Read]:
    """The labelled reads of one corpus's `train` questions that were packed a packet."""
    train = [q for q in load_questions(corpus) if q.split == "train"]
    config = corpus_config(corpus, state / corpus)
    found = packets(config, [q.question for q in train], packet_size, retriever)
    out: list[Read] = []
    for q, packet in zip(train, found, strict=True):
        example = Example("docs", q.question, q.answerable, q.expected, q.strings)
        if packet is not None:
            out.append(labelled(example, packet, embedder))
    print(f"  {corpus}: {len(train)} train questions", file=sys.stderr)
    return out


def collect(
    squad: int | None,
    seed: int,
    state: Path,
    embedder: ReaderEmbedder,
    packet_size: PacketSize = PACKET_SIZE,
    retriever: Callable[[Index], Retriever] = lambda index: index,
    squad_dir: Path | None = None,
) -> list[Read]:
    """Every corpus's docs train reads, then `squad` SQuAD v2.0 questions' (seeded by `seed`;
    every question, in the file's order, when `squad` is None)."""
    out: list[Read] = []
    for corpus in sorted(SETS):
        out += docs_reads(corpus, state, embedder, packet_size, retriever)
    with tempfile.TemporaryDirectory() as tmp:
        # A kept folder (training/packet_sweep.py reads it once per setting) keeps its index.
        folder = squad_dir or Path(tmp)
        out += squad_reads(squad, seed, folder, embedder, packet_size, retriever)
    return out


def squad_reads(
    squad: int | None,
    seed: int,
    folder: Path,
    embedder: ReaderEmbedder,
    packet_size: PacketSize = PACKET_SIZE,
    retriever: Callable[[Index], Retriever] = lambda index: index,
) -> list[Read]:
    """`squad` SQuAD v2.0 questions' reads (seeded by `seed`; all of them when None), their
    paragraphs written and indexed under `folder` (`squad_config(folder)` is their collection)."""
    docs = folder / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    cases = squad_cases(SQUAD_V2, docs, squad, seed)
    found = packets(squad_config(folder), [c.question for c in cases], packet_size, retriever)
    out: list[Read] = []
    for case, packet in zip(cases, found, strict=True):
        example = Example(
            "squad", case.question, bool(case.answers), (case.gold_path,), case.answers
        )
        if packet is not None:
            out.append(labelled(example, packet, embedder))
    print(f"  SQuAD v2.0: {len(cases)} questions", file=sys.stderr)
    return out


def squad_config(folder: Path) -> Config:
    """The config of the SQuAD paragraphs squad_reads wrote under `folder`."""
    return collection_config(folder / "docs", folder)
