"""Fit and measure the fusion of BM25 with dense vectors (retrieval/fusion.py).

Training split: the SQuAD v1.1 dev articles at even positions (24 articles); held-out: the odd
ones (24). Each split's paragraphs are indexed by the real `docbot index` code as one file per
paragraph (default chunk settings: the few paragraphs over 350 tokens become two chunks, either
counts as found), in one collection per split, so its questions only ever see their own split;
with --distractors the Django and Python docs are indexed beside both splits (public, so both
splits' scopes hold them) to make the search harder, as at real scale. For every question the
scope's candidates (BM25 top `depth` and every chunk's dense score, `Index.candidates`) are
computed once; each fusion is then applied to them:
- weighted score fusion over a grid of weights and depths, fit on the training split by MRR@10
  (ties: the smaller weight), reported on both splits;
- reciprocal rank fusion (k=60) at the fitted depth;
- BM25 alone (weight 0).
The second training set is docs-kind: the answerable questions of docbot's development sets
(benchmarks/questions, engineers' phrasing over httpx, Django, Python and the PEPs; split by
benchmarks/dev_questions.split_of), a question found when a chunk of an expected file ranks.
The fit maximises the mean of the two training sets' MRR@10; the reports are on SQuAD's
held-out articles and the dev sets' `test` split. The Django FAQ (54 questions, question
headings removed; benchmarks/django_faq.py) is only reported: it is too small to fit on.

    python -m benchmarks.dense_fusion [--distractors] [--questions N] [--no-dev] [--squad v2.0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from benchmarks import dev_questions
from benchmarks.django_faq import FAQ, load_questions, strip_question_headings
from retrieval.config import Config, load_config
from retrieval.dense import ShortlistScores
from retrieval.fusion import (
    DENSE_WEIGHT,
    DEPTH,
    DenseSide,
    ExactScores,
    Ranked,
    reciprocal_rank,
    weighted,
)
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope

REPO = Path(__file__).resolve().parents[1]
SQUAD = REPO / ".." / "shared" / "eval" / "squad" / "dev-v1.1.json"
SQUAD_FILES = {"v1.1": SQUAD, "v2.0": SQUAD.with_name("dev-v2.0.json")}
DJANGO = REPO / ".." / "shared" / "corpora" / "django-docs"
PYTHON = REPO / ".." / "shared" / "corpora" / "python-docs-3.11"
WEIGHTS = [round(0.05 * i, 2) for i in range(21)]
DEPTHS = [20, 50, 100]

Fuse = Callable[[Ranked, DenseSide, int], Ranked]


@dataclass(frozen=True, slots=True)
class Case:
    """One question's candidates: BM25's top list and the scope's dense side."""

    lexical: Ranked
    dense: DenseSide
    gold: frozenset[int]  # positions of the chunks that count as found


@dataclass(frozen=True, slots=True)
class Scores:
    recall_1: float
    recall_5: float
    mrr_10: float

    def line(self) -> str:
        return (
            f"recall@1 {self.recall_1:.3f}  recall@5 {self.recall_5:.3f}  MRR@10 {self.mrr_10:.3f}"
        )


def score(cases: Sequence[Case], fuse: Fuse) -> Scores:
    r1 = r5 = mrr = 0.0
    for case in cases:
        top = [position for position, _ in fuse(case.lexical, case.dense, 10)]
        place = next((i + 1 for i, p in enumerate(top) if p in case.gold), 0)
        r1 += place == 1
        r5 += 0 < place <= 5
        mrr += 1.0 / place if place else 0.0
    n = len(cases)
    return Scores(r1 / n, r5 / n, mrr / n)


def squad_splits(path: Path) -> dict[str, list[tuple[list[str], list[tuple[str, int]]]]]:
    """split -> articles, each (paragraphs, [(question, paragraph number)]); v2.0's
    unanswerable questions are left out (no paragraph answers them)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    splits: dict[str, list[tuple[list[str], list[tuple[str, int]]]]] = {"train": [], "held": []}
    for n, article in enumerate(data["data"]):
        paragraphs = [p["context"] for p in article["paragraphs"]]
        questions = [
            (qa["question"], i)
            for i, p in enumerate(article["paragraphs"])
            for qa in p["qas"]
            if not qa.get("is_impossible", False)
        ]
        splits["train" if n % 2 == 0 else "held"].append((paragraphs, questions))
    return splits


def write_squad(
    work: Path, distractors: bool, squad: Path = SQUAD
) -> tuple[Config, dict[str, list[tuple[str, str]]]]:
    """A config with one collection per split (+ Django docs); split -> [(question, path)]."""
    asked: dict[str, list[tuple[str, str]]] = {}
    collections: list[dict[str, Any]] = []
    for split, articles in squad_splits(squad).items():
        folder = work / split
        folder.mkdir()
        asked[split] = []
        for a, (paragraphs, questions) in enumerate(articles):
            for p, text in enumerate(paragraphs):
                (folder / f"a{a:02d}p{p:03d}.txt").write_text(text, encoding="utf-8")
            asked[split] += [(q, f"a{a:02d}p{p:03d}.txt") for q, p in questions]
        # Each split private to its own channel: a question never sees the other split.
        collections.append(
            {"name": split, "path": split, "access": "private", "channels": [f"C{split.upper()}"]}
        )
    if distractors:
        collections.append({"name": "django", "path": str(DJANGO), "include": ["**/*.txt"]})
        collections.append({"name": "python", "path": str(PYTHON)})
    raw = {
        "state_dir": "state",
        "teams": ["T1"],
        "collections": collections,
    }
    (work / "docbot.yml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_config(work / "docbot.yml"), asked


def cases_for(
    index: Index, config: Config, channel: str, asked: Sequence[tuple[str, str]], collection: str
) -> list[Case]:
    scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
    chunks = index.chunks(scope)
    by_path: dict[str, set[int]] = {}
    for position, chunk in enumerate(chunks):
        if chunk.collection == collection:
            by_path.setdefault(chunk.path, set()).add(position)
    cases = []
    for question, path in asked:
        lexical, dense = index.candidates(question, scope, max(DEPTHS))
        assert dense is not None
        cases.append(Case(lexical, dense, frozenset(by_path.get(path, ()))))
    return cases


def weighted_at(weight: float, depth: int) -> Fuse:
    return lambda lexical, dense, k: weighted(lexical, dense, k, weight=weight, depth=depth)


def rrf_at(depth: int) -> Fuse:
    return lambda lexical, dense, k: reciprocal_rank(lexical, dense, k, depth=depth)


def bm25_alone(lexical: Ranked, dense: DenseSide, k: int) -> Ranked:
    return lexical[:k]


def shortlist_fidelity(cases: Sequence[Case], depth: int = 100) -> float:
    """Mean share of the exact dense top `depth` that the prefix shortlist's top holds."""
    shares = []
    for case in cases[:500]:
        side = case.dense
        if not isinstance(side, ShortlistScores):
            continue
        exact = ExactScores(side.at(np.arange(side.size, dtype=np.int64)))
        wanted = set(exact.top(depth).tolist())
        if wanted:
            shares.append(len(wanted & set(side.top(depth).tolist())) / len(wanted))
    return float(np.mean(shares)) if shares else float("nan")


def fit(trains: Sequence[Sequence[Case]]) -> tuple[float, int, dict[tuple[float, int], float]]:
    """The (weight, depth) of the best mean MRR@10 over the training sets; ties: smaller."""
    grid = {
        (w, d): sum(score(train, weighted_at(w, d)).mrr_10 for train in trains) / len(trains)
        for d in DEPTHS
        for w in WEIGHTS
    }
    best = max(grid, key=lambda key: (round(grid[key], 6), -key[0], -key[1]))
    return best[0], best[1], grid


def dev_cases(work: Path) -> dict[str, list[Case]]:
    """split -> the answerable development questions' cases, over each corpus' own index."""
    out: dict[str, list[Case]] = {"train": [], "test": []}
    for corpus in dev_questions.SETS:
        questions = [q for q in dev_questions.load_questions(corpus) if q.answerable]
        config = dev_questions.corpus_config(corpus, work / f"dev-{corpus}")
        started = time.perf_counter()
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
        chunks = index.chunks(scope)
        for q in questions:
            lexical, dense = index.candidates(q.question, scope, max(DEPTHS))
            assert dense is not None
            gold = frozenset(i for i, c in enumerate(chunks) if c.path in q.expected)
            out[q.split].append(Case(lexical, dense, gold))
        print(
            f"dev {corpus}: {len(chunks):,} chunks, {len(questions)} answerable questions, "
            f"{time.perf_counter() - started:.1f} s"
        )
    return out


def faq_cases(work: Path) -> list[Case]:
    questions = load_questions()
    docs = work / "faq"
    docs.mkdir()
    strip_question_headings(FAQ, docs, questions)
    raw = {
        "state_dir": "faq-state",
        "teams": ["T1"],
        "collections": [{"name": "faq", "path": "faq", "include": ["*.txt"]}],
    }
    (work / "faq.yml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    config = load_config(work / "faq.yml")
    build_index(config)
    index = Index.load(config)
    return cases_for(index, config, "C0FAQ", [(q.question, q.source) for q in questions], "faq")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--distractors", action="store_true", help="index the Django docs too")
    parser.add_argument("--questions", type=int, default=0, help="sample N per split (0: all)")
    parser.add_argument("--no-dev", action="store_true", help="fit on SQuAD alone")
    parser.add_argument(
        "--squad", choices=sorted(SQUAD_FILES), default="v1.1", help="v2.0: answerable ones"
    )
    args = parser.parse_args()
    squad = SQUAD_FILES[args.squad]
    if not squad.exists():
        sys.exit(f"{squad} is absent: this benchmark needs ../shared beside the repository")
    with tempfile.TemporaryDirectory(prefix="docbot-fusion-") as temporary:
        work = Path(temporary)
        config, asked = write_squad(work, args.distractors, squad)
        started = time.perf_counter()
        report = build_index(config)
        counts = ", ".join(f"{c.name} {c.chunks:,}" for c in report.collections)
        print(f"indexed {counts} chunks in {time.perf_counter() - started:.1f} s")
        index = Index.load(config)
        splits = {}
        for split, questions in asked.items():
            if args.questions:
                questions = random.Random(0).sample(questions, min(args.questions, len(questions)))
            started = time.perf_counter()
            splits[split] = cases_for(index, config, f"C{split.upper()}", questions, split)
            print(
                f"{split}: {len(questions):,} questions, candidates in "
                f"{time.perf_counter() - started:.1f} s"
            )
        faq = faq_cases(work) if (FAQ / "questions.jsonl").is_file() else []
        dev = {} if args.no_dev else dev_cases(work)
    trains = [splits["train"]] + ([dev["train"]] if dev else [])
    weight, depth, grid = fit(trains)
    print(
        f"\nweighted fusion fit on the training sets (mean MRR@10): weight {weight}, depth {depth}"
    )
    print(f"  in use in retrieval/fusion.py: weight {DENSE_WEIGHT}, depth {DEPTH}")
    by_weight = ", ".join(f"{w}:{grid[(w, depth)]:.3f}" for w in WEIGHTS[::2])
    print(f"  mean train MRR@10 by weight at that depth: {by_weight}")
    methods: dict[str, Fuse] = {
        "BM25 alone": bm25_alone,
        f"weighted w={weight} depth={depth} (fit)": weighted_at(weight, depth),
        f"weighted w={DENSE_WEIGHT} depth={DEPTH} (in use)": weighted_at(DENSE_WEIGHT, DEPTH),
        f"reciprocal rank fusion depth={depth}": rrf_at(depth),
        "dense alone (weight 1)": weighted_at(1.0, depth),
    }
    overlap = shortlist_fidelity(splits["held"])
    print(f"  dense top {depth}: {overlap:.3f} of the exact top {depth} (prefix shortlist)")
    sets = {"SQuAD train": splits["train"], "SQuAD held-out": splits["held"]}
    if dev:
        sets |= {"dev sets train": dev["train"], "dev sets test": dev["test"]}
    if faq:
        sets["Django FAQ (report only)"] = faq
    for label, cases in sets.items():
        print(f"\n{label}: {len(cases):,} questions")
        for name, fuse in methods.items():
            print(f"  {name:<42} {score(cases, fuse).line()}")


if __name__ == "__main__":
    main()
