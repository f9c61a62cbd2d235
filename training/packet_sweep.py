"""Choose the packet the extractive reader reads (`extractive.PACKET_SIZE`) on the train split.

The reader quotes from its packet and nothing else, so a right unit left out of the packet is an
answer lost before the reader starts; the `answer:` defaults (3,000 tokens, 2 chunks per file,
12 hits) size a model's prompt, and a reader in code can afford more. For each setting of the
grid (tokens, chunks per file, hits, neighbours, and the dense weight of search fusion as it
changes the packet):
1. the reader is refit on that setting's own packets (training/reader_data.py's `collect` and
   training/train_reader.py's `fit_reader`: a SQuAD v2.0 dev sample and the docs train
   split), since its weights and threshold were fit on today's packets;
2. the real pipeline (index from disk, packing, the refit reader, verification) answers the
   docs train questions with that packet. The test split is never read.

Printed per setting: answered right, uncovered refused, expected file in the packet, gold
string in the packet (an expected string inside an expected file's packed chunk), packet
tokens, and the generate stage's p50 / p95. The chosen setting answers the most right among
those refusing at least REFUSAL_FLOOR of the uncovered questions (the threshold's rule,
training/reader_threshold.py), then has the most gold in packet, then the smallest budget.

    python training/packet_sweep.py [--squad N] [--settings NAME ...] [--state DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.answer_quality import Recording, RecordingGenerator
from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import SETS, Question, corpus_config, load_questions, pipeline_for
from grounding.answer import Answer, AnswerStatus
from grounding.evaluation.scoring import answered_right
from grounding.evidence import EvidencePacket, PacketSize
from grounding.generators.extractive import ExtractiveGenerator
from grounding.generators.reader_model import ReaderModel
from grounding.pipeline import AnswerPipeline
from retrieval.chunks import Chunk, Hit
from retrieval.embeddings import load_embedder
from retrieval.fusion import DENSE_WEIGHT, DEPTH, weighted
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from training.reader_data import collect, norm
from training.reader_threshold import floor_score
from training.train_reader import fit_reader, one_hash_seed


@dataclass(frozen=True, slots=True)
class Setting:
    packet: PacketSize
    dense_weight: float = DENSE_WEIGHT


# The answer: defaults first (what the reader read before this sweep). Every setting here was
# run; the figures and the choice are in docs/performance-answerer.md "The reader's packet (h5)".
GRID: dict[str, Setting] = {
    "base": Setting(PacketSize(3000, 2, 12)),
    "t6000": Setting(PacketSize(6000, 2, 12)),
    "t6000-k24": Setting(PacketSize(6000, 2, 24)),
    "t9000-f3-k24": Setting(PacketSize(9000, 3, 24)),
    "f3": Setting(PacketSize(3000, 3, 12)),
    "f4": Setting(PacketSize(3000, 4, 12)),
    "f3-t4000": Setting(PacketSize(4000, 3, 12)),
    "f3-k16": Setting(PacketSize(3000, 3, 16)),
    "solo": Setting(PacketSize(3000, 2, 12, neighbours=False)),
    "d20": Setting(PacketSize(3000, 2, 12), 0.2),
    "d50": Setting(PacketSize(3000, 2, 12), 0.5),
}


class Reweighed:
    """The index searched with another dense weight in fusion (a Retriever)."""

    def __init__(self, index: Index, weight: float) -> None:
        self._index = index
        self._weight = weight

    @property
    def generation(self) -> str:
        return self._index.generation

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        lexical, dense = self._index.candidates(query, scope, max(k, DEPTH))
        ranked = lexical[:k] if dense is None else weighted(lexical, dense, k, self._weight)
        chunks = self._index.chunks(scope)
        return tuple(Hit(chunks[p], score, rank) for rank, (p, score) in enumerate(ranked, 1))

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        return self._index.adjacent(chunk)


@dataclass(frozen=True, slots=True)
class Outcome:
    question: Question
    answer: Answer
    packet: EvidencePacket | None


def file_in_packet(o: Outcome) -> bool:
    return o.packet is not None and any(
        item.chunk.path in o.question.expected for item in o.packet.items
    )


def gold_in_packet(o: Outcome) -> bool:
    if o.packet is None:
        return False
    strings = [norm(s) for s in o.question.strings]
    return any(
        item.chunk.path in o.question.expected and any(s in norm(item.chunk.text) for s in strings)
        for item in o.packet.items
    )


def answer_train(setting: Setting, model: ReaderModel, state: Path) -> list[Outcome]:
    recording = Recording()
    generator = RecordingGenerator(
        ExtractiveGenerator(model=model, packet_size=setting.packet), recording
    )
    out: list[Outcome] = []
    for corpus in sorted(SETS):
        questions = [q for q in load_questions(corpus) if q.split == "train"]
        config = corpus_config(corpus, state / corpus)
        build_index(config)
        reweighed = functools.partial(Reweighed, weight=setting.dense_weight)
        pipeline = pipeline_for(config, generator, reweighed)
        scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
        out.extend(asyncio.run(_answer_all(pipeline, recording, questions, scope)))
    return out


async def _answer_all(
    pipeline: AnswerPipeline, recording: Recording, questions: Sequence[Question], scope: Scope
) -> list[Outcome]:
    out = []
    for q in questions:
        recording.packets.append(None)
        answered = await pipeline.answer(q.question, scope)
        out.append(Outcome(q, answered, recording.packets[-1]))
    return out


def score(outcomes: Sequence[Outcome]) -> dict[str, float]:
    covered = [o for o in outcomes if o.question.answerable]
    uncovered = [o for o in outcomes if not o.question.answerable]
    tokens = [o.packet.tokens for o in outcomes if o.packet is not None]
    generate = [o.answer.timings_ms["generate"] for o in outcomes if o.packet is not None]
    p50, p95 = np.percentile(generate, [50, 95]) if generate else (0.0, 0.0)
    return {
        "answerable": len(covered),
        "right": sum(answered_right(o.answer, o.question) for o in covered),
        "uncovered": len(uncovered),
        "refused": sum(o.answer.status is AnswerStatus.NOT_FOUND for o in uncovered),
        "file": sum(file_in_packet(o) for o in covered),
        "gold": sum(gold_in_packet(o) for o in covered),
        "tokens": float(np.mean(tokens)) if tokens else 0.0,
        "items": float(np.mean([len(o.packet.items) for o in outcomes if o.packet is not None])),
        "p50": float(p50),
        "p95": float(p95),
    }


def chosen(scores: dict[str, dict[str, float]], grid: dict[str, Setting]) -> str:
    """The setting answering the most right among those refusing at least REFUSAL_FLOOR of the
    uncovered questions (training/reader_threshold.py's rule for the threshold), then the most
    gold in packet, then the smallest budget."""

    def key(name: str) -> tuple[float, float, int]:
        s = scores[name]
        share = floor_score(
            s["right"] / max(s["answerable"], 1), s["refused"] / max(s["uncovered"], 1)
        )
        return (share, s["gold"], -grid[name].packet.evidence_tokens)

    return max(scores, key=key)


def main(argv: Sequence[str] | None = None) -> int:
    one_hash_seed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=int, default=1500, help="SQuAD v2.0 questions to read")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--settings", nargs="*", choices=sorted(GRID), default=list(GRID))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    embedder = load_embedder()
    grid = {name: GRID[name] for name in args.settings}
    scores: dict[str, dict[str, float]] = {}
    print("train split, the reader refit per setting: answered right, uncovered refused,")
    print("  expected file in packet, gold string in packet, packet tokens / items, generate ms")
    for name, setting in grid.items():
        reads = collect(
            args.squad,
            args.seed,
            args.state,
            embedder,
            setting.packet,
            functools.partial(Reweighed, weight=setting.dense_weight),
            args.state / "squad-v2",
        )
        model, _ = fit_reader(reads, args.squad, args.seed)
        s = scores[name] = score(answer_train(setting, model, args.state))
        print(
            f"  {name:>14}: right {s['right']:.0f}/{s['answerable']:.0f}, refused "
            f"{s['refused']:.0f}/{s['uncovered']:.0f}, file {s['file']:.0f}, gold "
            f"{s['gold']:.0f}, tokens {s['tokens']:.0f} / items {s['items']:.1f}, generate "
            f"p50 / p95 {s['p50']:.1f} / {s['p95']:.1f} (threshold {model.threshold}, "
            f"ratio {model.extra_ratio})",
            flush=True,
        )
    best = chosen(scores, grid)
    print(f"chosen: {best} {grid[best]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
