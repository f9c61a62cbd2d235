"""What the gate before the generator costs per question, beside retrieval.

Every development question of a corpus is answered through `bot.runtime.make_pipeline` (the
gate as shipped, its fitted thresholds) with the offline extractive generator, and the p50 / p95
of `timings_ms["gate"]` and `timings_ms["retrieve"]` are printed with the scope's size.

    python -m benchmarks.gate_cost [--corpus httpx python] [--state DIR]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import SETS, corpus_config, load_questions
from bot.runtime import make_pipeline
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope


def measure(corpus: str, state: Path) -> str:
    config = corpus_config(corpus, state / corpus)
    build_index(config)
    index = Index.load(config)
    pipeline = make_pipeline(config, index, ExtractiveGenerator())
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
    questions = load_questions(corpus)

    async def run() -> list[dict[str, float]]:
        return [(await pipeline.answer(q.question, scope)).timings_ms for q in questions]

    timings = asyncio.run(run())
    chunks, _ = index.frequencies((), scope)

    def p50_p95(stage: str) -> str:
        p50, p95 = np.percentile([t[stage] for t in timings], [50, 95])
        return f"{p50:.1f} / {p95:.1f}"

    return (
        f"{corpus}: {chunks:,} chunks, {len(questions)} questions; p50 / p95 ms: "
        f"gate {p50_p95('gate')}, retrieve {p50_p95('retrieve')}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=["httpx", "python"])
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-gate-cost"))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    for corpus in args.corpus:
        print(measure(corpus, args.state), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
