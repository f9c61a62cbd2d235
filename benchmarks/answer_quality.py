"""Grounded-answer quality and stage timings of the extractive generator in the real pipeline.

SQuAD v1.1 dev (paragraphs as the documents of one collection): how often a claim holds the
gold answer text, and how often the gold paragraph is in the packet. SQuAD v2.0 dev: how often
unanswerable questions get `not_found` and answerable ones get `answered`. The httpx question
set: answered from an expected file, and refusals. Then p50/p95 per stage and packet tokens.

    python benchmarks/answer_quality.py [--sample N] [--seed S] [--threshold T] [--sweep]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from grounding.answer import Answer, AnswerStatus
from grounding.evidence import EvidencePacket, PacketSize, PackPolicy
from grounding.generators.base import Generation, GenerationRequest, Prompt
from grounding.generators.extractive import ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from grounding.retriever import Retriever
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from retrieval.tokens import TiktokenCounter

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
SQUAD = SHARED / "eval" / "squad"
HTTPX_DOCS = SHARED / "corpora" / "httpx-docs"
HTTPX_QUESTIONS = REPO / "tests" / "grounding" / "httpx_questions.jsonl"
STAGES = ("retrieve", "pack", "generate", "verify")
_NO_PROMPT = Prompt("", "")  # the extractive generator reads the packet, never the prompt


@dataclass(frozen=True, slots=True)
class Case:
    question: str
    gold_path: str  # the paragraph's file, or '' for the httpx set
    answers: tuple[str, ...]  # gold answer texts; empty when unanswerable
    expected: tuple[str, ...] = ()  # httpx: files an answer may cite


@dataclass
class Recording:
    """What the pipeline sent to the generator, per question, for packet-level measures."""

    packets: list[EvidencePacket | None] = field(default_factory=list)


class RecordingGenerator:
    """The extractive generator, keeping each packet it was given (none for empty packets)."""

    def __init__(self, inner: ExtractiveGenerator, recording: Recording) -> None:
        self._inner = inner
        self._recording = recording

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def packet_size(self) -> PacketSize:
        return self._inner.packet_size  # the packet the reader itself would be given

    async def generate(self, request: GenerationRequest) -> Generation:
        self._recording.packets[-1] = request.packet
        return await self._inner.generate(request)


@dataclass(frozen=True, slots=True)
class Run:
    cases: tuple[Case, ...]
    answers: tuple[Answer, ...]
    packets: tuple[EvidencePacket | None, ...]


def squad_cases(path: Path, folder: Path, sample: int | None, seed: int) -> tuple[Case, ...]:
    """Writes each paragraph as a file under `folder`; returns a seeded sample of questions,
    or every question in the file's order when `sample` is None (no seed reaches it)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    cases: list[Case] = []
    for a, article in enumerate(data["data"]):
        slug = re.sub(r"[^A-Za-z0-9]+", "_", article["title"])[:40]
        for p, paragraph in enumerate(article["paragraphs"]):
            rel = f"{a:02d}-{slug}/{p:03d}.txt"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_text(paragraph["context"] + "\n", encoding="utf-8")
            for qa in paragraph["qas"]:
                answers = tuple(x["text"] for x in qa["answers"])
                cases.append(Case(qa["question"], rel, answers))
    if sample is None:
        return tuple(cases)
    order = np.random.default_rng(seed).permutation(len(cases))
    return tuple(cases[i] for i in order[:sample])


def httpx_cases() -> tuple[Case, ...]:
    rows = [json.loads(x) for x in HTTPX_QUESTIONS.read_text(encoding="utf-8").splitlines() if x]
    return tuple(
        Case(r["question"], "", ("yes",) if r["answerable"] else (), tuple(r["expected"]))
        for r in rows
    )


def collection_config(docs: Path, state: Path) -> Config:
    config_file = state / "docbot.yml"
    config_file.write_text(
        f"state_dir: {json.dumps(str(state / 'state'))}\nteams: [T0BENCH]\ncollections:\n"
        f"  - name: docs\n    path: {json.dumps(str(docs))}\n",
        encoding="utf-8",
    )
    return load_config(config_file)


def run(
    config: Config,
    cases: Sequence[Case],
    threshold: float | None,
    retriever: Callable[[Index], Retriever] = lambda index: index,
) -> Run:
    """The cases answered over `config`'s index, wrapped by `retriever`
    (benchmarks/minilm_answers.py reorders its hits)."""
    build_index(config)
    recording = Recording()
    answer = config.answer
    policy = PackPolicy.from_config(answer)
    generator = RecordingGenerator(ExtractiveGenerator(threshold=threshold), recording)
    pipeline = AnswerPipeline(
        retriever(Index.load(config)),
        generator,
        TiktokenCounter(),
        policy,
        url_resolver(config),
        k=answer.k,
    )
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
    answers = asyncio.run(_ask_all(pipeline, scope, cases, recording))
    return Run(tuple(cases), answers, tuple(recording.packets))


async def _ask_all(
    pipeline: AnswerPipeline, scope: Scope, cases: Sequence[Case], recording: Recording
) -> tuple[Answer, ...]:
    out = []
    for case in cases:
        recording.packets.append(None)
        out.append(await pipeline.answer(case.question, scope))
    return tuple(out)


def share(flags: Iterable[bool]) -> str:
    values = list(flags)
    return f"{sum(values) / len(values):.3f} ({sum(values)}/{len(values)})" if values else "n/a"


def gold_in_claim(answer: Answer, case: Case) -> bool:
    return any(gold in claim.text for gold in case.answers for claim in answer.claims)


def gold_in_packet(packet: EvidencePacket | None, case: Case) -> bool:
    return packet is not None and any(i.chunk.path == case.gold_path for i in packet.items)


def cites_expected(answer: Answer, case: Case) -> bool:
    paths = {s.n: s.path for s in answer.sources}
    cited = {paths.get(n) for claim in answer.claims for n in claim.citations}
    return answer.status is AnswerStatus.ANSWERED and bool(cited & set(case.expected))


def line(label: str, value: str) -> None:
    print(f"  {label:<34}{value}")


def report_squad_v1(result: Run) -> None:
    triples = list(zip(result.cases, result.answers, result.packets, strict=True))
    print(f"SQuAD v1.1 dev, sample {len(triples)} questions")
    line("gold answer text in a claim", share(gold_in_claim(a, c) for c, a, _ in triples))
    line("gold paragraph in the packet", share(gold_in_packet(p, c) for c, _, p in triples))
    line("answered", share(a.status == "answered" for a in result.answers))
    packed = [(c, a) for c, a, p in triples if gold_in_packet(p, c)]
    line("gold in claim | paragraph packed", share(gold_in_claim(a, c) for c, a in packed))


def report_squad_v2(result: Run) -> None:
    pairs = list(zip(result.cases, result.answers, strict=True))
    unanswerable = [a for c, a in pairs if not c.answers]
    answerable = [(c, a) for c, a in pairs if c.answers]
    print(f"SQuAD v2.0 dev, sample {len(pairs)} questions ({len(unanswerable)} unanswerable)")
    line("unanswerable -> not_found", share(a.status == "not_found" for a in unanswerable))
    line("answerable -> answered", share(a.status == "answered" for _, a in answerable))
    line("answerable: gold text in a claim", share(gold_in_claim(a, c) for c, a in answerable))


def report_httpx(result: Run) -> None:
    pairs = list(zip(result.cases, result.answers, strict=True))
    answerable = [(c, a) for c, a in pairs if c.answers]
    uncovered = [(c, a) for c, a in pairs if not c.answers]
    print(f"httpx question set, {len(answerable)} answerable + {len(uncovered)} not covered")
    line("answered citing an expected file", share(cites_expected(a, c) for c, a in answerable))
    line("answerable -> not_found", share(a.status == "not_found" for _, a in answerable))
    line("not covered -> not_found", share(a.status == "not_found" for _, a in uncovered))
    for case, answer in pairs:
        ok = cites_expected(answer, case) if case.answers else answer.status == "not_found"
        if not ok:
            cited = sorted({s.path for s in answer.sources})
            print(f"    miss: {case.question!r} -> {answer.status.value} {cited}")
    line("claims dropped by verification", str(sum(len(a.dropped_claims) for a in result.answers)))


def report_timings(results: Sequence[Run]) -> None:
    answers = [a for r in results for a in r.answers]
    print(f"Stage timings over {len(answers)} questions (ms, p50 / p95)")
    for stage in STAGES:
        values = [a.timings_ms[stage] for a in answers if stage in a.timings_ms]
        if values:
            p50, p95 = np.percentile(values, [50, 95])
            print(f"  {stage:<10} {p50:8.2f} / {p95:8.2f}   (n={len(values)})")
    answered = [a for a in answers if a.status is AnswerStatus.ANSWERED]
    if answered:
        claims = np.percentile([len(a.claims) for a in answered], [50, 95])
        chars = np.percentile([sum(len(c.text) for c in a.claims) for a in answered], [50, 95])
        print(f"  claims per answer {claims[0]:.0f} / {claims[1]:.0f}", end="")
        print(f"   characters per answer {chars[0]:.0f} / {chars[1]:.0f}")
    tokens = [p.tokens for r in results for p in r.packets if p is not None]
    if tokens:
        p50, p95 = np.percentile(tokens, [50, 95])
        print(f"  packet tokens {p50:.0f} / {p95:.0f}")


def sweep(result: Run, name: str) -> None:
    """Refusal trade-off of other thresholds, re-generating from the recorded packets only."""
    print(f"Threshold sweep on {name} (recorded packets; verification not re-run)")
    for threshold in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        generator = ExtractiveGenerator(threshold=threshold)
        answered = [p is not None and _answers(generator, p) for p in result.packets]
        yes = [a for a, c in zip(answered, result.cases, strict=True) if c.answers]
        no = [not a for a, c in zip(answered, result.cases, strict=True) if not c.answers]
        print(
            f"  {threshold:.2f}  answerable answered {share(yes)}  unanswerable refused {share(no)}"
        )


def _answers(generator: ExtractiveGenerator, packet: EvidencePacket) -> bool:
    request = GenerationRequest(packet, prompt=_NO_PROMPT)
    return asyncio.run(generator.generate(request)).response.status == "answered"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=2000, help="SQuAD questions per set")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument(
        "--threshold", type=float, default=None, help="answer probability cutoff (default: trained)"
    )
    parser.add_argument("--sweep", action="store_true", help="also sweep the threshold")
    args = parser.parse_args(argv)
    if not SQUAD.is_dir():
        print(f"../shared is absent: no SQuAD at {SQUAD}", file=sys.stderr)
        return 2
    threshold = ExtractiveGenerator(threshold=args.threshold).threshold
    print(f"extractive generator, threshold {threshold}, seed {args.seed}")
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, report in (
            ("dev-v1.1.json", report_squad_v1),
            ("dev-v2.0.json", report_squad_v2),
        ):
            work = Path(tmp) / name
            docs = work / "docs"
            docs.mkdir(parents=True)
            cases = squad_cases(SQUAD / name, docs, args.sample, args.seed)
            started = time.perf_counter()
            result = run(collection_config(docs, work), cases, args.threshold)
            report(result)
            print(f"  ({time.perf_counter() - started:.0f} s)")
            if args.sweep and name == "dev-v2.0.json":
                sweep(result, "SQuAD v2.0")
            results.append(result)
        work = Path(tmp) / "httpx"
        work.mkdir()
        result = run(collection_config(HTTPX_DOCS.resolve(), work), httpx_cases(), args.threshold)
        report_httpx(result)
        if args.sweep:
            sweep(result, "httpx")
        results.append(result)
    report_timings(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
