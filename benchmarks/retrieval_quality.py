"""Retrieval quality on SQuAD dev: each question should find its own paragraph.

v1.1 (the default): 2,067 paragraphs are the chunks, 10,570 questions the queries. v2.0: 1,204
paragraphs and its 5,928 answerable questions (an unanswerable one has no paragraph to find).
Prints recall@1, recall@5 and MRR@10 for docbot's tokenizer with each engine, for tokenizer
variants (to justify its choices), and for the baseline: rank-bm25 BM25Okapi over
`re.findall(r"\\w+", text.lower())`.

    python benchmarks/retrieval_quality.py [--squad v1.1|v2.0] [--variants] [--questions N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from retrieval.engines import EngineKind, build_engine
from retrieval.text import Tokenizer, tokenize

REPO = Path(__file__).resolve().parents[1]
SQUAD = REPO / ".." / "shared" / "eval" / "squad" / "dev-v1.1.json"
SQUAD_FILES = {"v1.1": SQUAD, "v2.0": SQUAD.with_name("dev-v2.0.json")}
KINDS: tuple[EngineKind, ...] = ("bm25", "tantivy")
HTTPX_DOCS = REPO / ".." / "shared" / "corpora" / "httpx-docs"
HTTPX_QUESTIONS = REPO / "tests" / "grounding" / "httpx_questions.jsonl"


@dataclass(frozen=True, slots=True)
class Squad:
    paragraphs: tuple[str, ...]
    questions: tuple[tuple[str, int], ...]  # (question, index of its paragraph)


def load_squad(path: Path = SQUAD) -> Squad:
    data = json.loads(path.read_text(encoding="utf-8"))
    paragraphs: list[str] = []
    questions: list[tuple[str, int]] = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            questions.extend(
                (qa["question"], len(paragraphs))
                for qa in paragraph["qas"]
                if not qa.get("is_impossible", False)  # v2.0: its paragraph does not answer it
            )
            paragraphs.append(paragraph["context"])
    return Squad(tuple(paragraphs), tuple(questions))


@dataclass(frozen=True, slots=True)
class Scores:
    recall_1: float
    recall_5: float
    mrr_10: float
    ms_per_query: float

    def line(self, label: str) -> str:
        return (
            f"{label:<44} recall@1 {self.recall_1:.3f}  recall@5 {self.recall_5:.3f}  "
            f"MRR@10 {self.mrr_10:.3f}  {self.ms_per_query:.2f} ms/query"
        )


def evaluate(rank: Callable[[str], Sequence[int]], questions: Sequence[tuple[str, int]]) -> Scores:
    """`rank(question)` returns paragraph indices, best first (at least the top 10)."""
    hits_1 = hits_5 = 0
    reciprocal = 0.0
    started = time.perf_counter()
    for question, gold in questions:
        top = list(rank(question))[:10]
        if gold in top:
            place = top.index(gold) + 1
            hits_1 += place == 1
            hits_5 += place <= 5
            reciprocal += 1.0 / place
    elapsed = time.perf_counter() - started
    n = len(questions)
    return Scores(hits_1 / n, hits_5 / n, reciprocal / n, 1000 * elapsed / n)


def engine_ranker(
    kind: EngineKind, paragraphs: Sequence[str], tokenizer: Callable[[str], list[str]]
) -> Callable[[str], list[int]]:
    engine = build_engine(kind, [tokenizer(p) for p in paragraphs])
    return lambda question: [pos for pos, _ in engine.top_k(tokenizer(question), 10)]


def baseline_ranker(paragraphs: Sequence[str]) -> Callable[[str], list[int]]:
    def plain(text: str) -> list[str]:
        return re.findall(r"\w+", text.lower())

    bm25 = BM25Okapi([plain(p) for p in paragraphs])

    def rank(question: str) -> list[int]:
        scores = bm25.get_scores(plain(question))
        return [int(i) for i in np.argsort(-scores, kind="stable")[:10]]

    return rank


def variants() -> dict[str, Tokenizer]:
    """docbot's tokenizer with one choice reversed each, to show what each choice buys."""
    return {
        "docbot tokenizer, stopwords kept": Tokenizer(stopwords=frozenset()),
        "docbot tokenizer, dotted names not kept": Tokenizer(keep_dotted=False),
        "docbot tokenizer, no stemming": Tokenizer(stem=None),
    }


def httpx_recall(tokenizers: dict[str, Callable[[str], list[str]]]) -> None:
    """Docs questions with code names in them: recall@5 of an expected file, per tokenizer."""
    from retrieval.collections import scan_collection
    from retrieval.config import CollectionConfig, SearchConfig
    from retrieval.index import index_text
    from retrieval.tokens import TiktokenCounter

    collection = CollectionConfig(name="httpx", path=HTTPX_DOCS)
    snapshot, _ = scan_collection(collection, SearchConfig(), TiktokenCounter(), None)
    chunks = [chunk for record in snapshot.files for chunk in record.chunks]
    rows = [json.loads(line) for line in HTTPX_QUESTIONS.read_text().splitlines() if line]
    asked = [(row["question"], set(row["expected"])) for row in rows if row["answerable"]]
    print(f"\nhttpx docs: {len(chunks)} chunks, {len(asked)} answerable questions")
    for label, tokenizer in tokenizers.items():
        engine = build_engine("bm25", [tokenizer(index_text(c)) for c in chunks])
        ranks = []
        for question, expected in asked:
            paths = [chunks[pos].path for pos, _ in engine.top_k(tokenizer(question), 10)]
            ranks.append(next((i + 1 for i, p in enumerate(paths) if p in expected), 0))
        recall = sum(0 < r <= 5 for r in ranks) / len(ranks)
        mrr = sum(1 / r for r in ranks if r) / len(ranks)
        print(f"{label:<44} recall@5 {recall:.3f}  MRR@10 {mrr:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variants", action="store_true", help="also measure tokenizer variants")
    parser.add_argument("--questions", type=int, default=0, help="first N questions (0: all)")
    parser.add_argument("--squad", choices=sorted(SQUAD_FILES), default="v1.1")
    args = parser.parse_args()
    path = SQUAD_FILES[args.squad]
    if not path.exists():
        sys.exit(f"{path} is absent: this benchmark needs ../shared beside the repository")
    squad = load_squad(path)
    questions = squad.questions[: args.questions] if args.questions else squad.questions
    print(
        f"SQuAD {args.squad} dev: {len(squad.paragraphs)} paragraphs, "
        f"{len(questions)} answerable questions"
    )
    for kind in KINDS:
        ranker = engine_ranker(kind, squad.paragraphs, tokenize)
        print(evaluate(ranker, questions).line(f"docbot search, {kind} engine"))
    if args.variants:
        for label, tokenizer in variants().items():
            for kind in KINDS:
                ranker = engine_ranker(kind, squad.paragraphs, tokenizer)
                print(evaluate(ranker, questions).line(f"{label}, {kind}"))
    print(evaluate(baseline_ranker(squad.paragraphs), questions).line("baseline: BM25Okapi, \\w+"))
    if args.variants and HTTPX_QUESTIONS.exists():
        httpx_recall({"docbot tokenizer": tokenize, **variants()})


if __name__ == "__main__":
    main()
