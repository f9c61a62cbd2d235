"""Why a refit of the reader answers fewer train questions than the shipped weights: the same
docs train reads judged by both, at every threshold near theirs.

It collects the reads train_reader.py would (`--squad N --seed S`, or every SQuAD v2.0 dev
question by default), refits as it does (training/train_reader.fit_reader), and prints for the
shipped weights and the refit:

- the threshold and extra-passage ratio each holds, and the one the script's rule
  (training/reader_threshold.choose) picks for the shipped ranker and answerer on these reads;
  whether each file's own threshold refuses REFUSAL_FLOOR of the uncovered questions here;
- answered right / uncovered refused at each threshold around them (`curve`): two files whose
  curves agree differ only by the threshold they were given;
- the spread of the threshold the rule picks when the docs train questions are resampled with
  replacement (`threshold_spread`, a bootstrap): how far 341 questions pin it down.

Only the `train` split is read. `--cache PATH` keeps the reads (a pickle, ~60 MB at 1,500
SQuAD questions) so a second run only refits.

    python training/refit_gap.py [--squad N] [--seed S] [--state DIR] [--cache PATH]
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from grounding.generators.extractive import judge_reading
from grounding.generators.question import Kind
from grounding.generators.reader_model import WEIGHTS, ReaderModel, load_model
from training.reader_data import Read
from training.reader_threshold import REFUSAL_FLOOR, choose, holds, pick_threshold

RESAMPLES = 200
STEPS = 4  # thresholds each side of the files' own, by 0.01


@dataclass(frozen=True, slots=True)
class Judged:
    """One docs train question as a model judges it."""

    probability: float  # the answerer's; 0 for a packet with no answer units
    right: bool  # covered, and the passages quoted at the model's ratio hold its answer
    covered: bool


@dataclass(frozen=True, slots=True)
class Point:
    threshold: float
    right: int
    refused: int


def judged(reads: Sequence[Read], model: ReaderModel) -> list[Judged]:
    """The docs train reads as `model` judges them (its ranker, answerer and extra ratio)."""
    out = []
    for r in reads:
        if r.example.source != "docs":
            continue
        j = judge_reading(r.reading, model)
        howto = Kind.HOWTO in r.reading.asked.kinds
        right = r.example.answerable and holds(r, j.ranked, howto, model.extra_ratio)
        out.append(Judged(j.answerable if j.ranked else 0.0, right, r.example.answerable))
    return out


def curve(questions: Sequence[Judged], thresholds: Sequence[float]) -> list[Point]:
    """Answered right and uncovered refused at each threshold (answered: probability >= it)."""
    points = []
    for t in thresholds:
        right = sum(q.right and q.probability >= t for q in questions)
        refused = sum(not q.covered and q.probability < t for q in questions)
        points.append(Point(t, right, refused))
    return points


def floor_count(questions: Sequence[Judged]) -> int:
    """The fewest uncovered questions a threshold must refuse to reach REFUSAL_FLOOR."""
    uncovered = sum(not q.covered for q in questions)
    return int(np.ceil(REFUSAL_FLOOR * uncovered - 1e-9))


def threshold_spread(
    questions: Sequence[Judged], resamples: int = RESAMPLES, seed: int = 0
) -> tuple[float, float, float]:
    """(10th percentile, median, 90th percentile) of the threshold the floor rule picks on
    bootstrap resamples of `questions` (the ratio held fixed)."""
    p = np.array([q.probability for q in questions])
    right = np.array([q.right for q in questions])
    covered = np.array([q.covered for q in questions])
    rng = np.random.default_rng(seed)
    picked = []
    for _ in range(resamples):
        i = rng.integers(0, len(questions), len(questions))
        picked.append(pick_threshold(list(p[i]), list(right[i]), list(covered[i]))[1])
    low, mid, high = np.percentile(picked, [10, 50, 90])
    return float(low), float(mid), float(high)


def around(*thresholds: float) -> list[float]:
    """Every 0.01 from STEPS below the lowest of `thresholds` to STEPS above the highest."""
    low, high = min(thresholds) - STEPS * 0.01, max(thresholds) + STEPS * 0.01
    return [round(t, 2) for t in np.arange(low, high + 1e-9, 0.01)]


def report(reads: Sequence[Read], shipped: ReaderModel, refit: ReaderModel) -> list[str]:
    threshold, ratio, _ = choose(reads, shipped.ranker, shipped.answerer)
    rechosen = replace(shipped, threshold=threshold, extra_ratio=ratio)
    models = {"shipped": shipped, "refit": refit, "shipped, rule's threshold": rechosen}
    questions = {name: judged(reads, m) for name, m in models.items()}
    floor = floor_count(questions["shipped"])
    lines = [f"docs train: {len(questions['shipped'])} questions; the floor refuses {floor}"]
    for name, m in models.items():
        (point,) = curve(questions[name], [m.threshold])
        meets = "meets" if point.refused >= floor else "misses"
        lines.append(
            f"  {name:26} threshold {m.threshold:.2f} ratio {m.extra_ratio}: right "
            f"{point.right}, refused {point.refused} ({meets} the floor)"
        )
    lines.append("threshold  shipped right/refused  refit right/refused")
    grid = around(shipped.threshold, refit.threshold, threshold)
    rows = zip(curve(questions["shipped"], grid), curve(questions["refit"], grid), strict=True)
    for a, b in rows:
        lines.append(
            f"  {a.threshold:.2f}     {a.right:3} / {a.refused:3}            "
            f"{b.right:3} / {b.refused:3}"
        )
    for name in ("shipped", "refit"):
        low, mid, high = threshold_spread(questions[name])
        lines.append(
            f"the rule's threshold over {RESAMPLES} resamples of the docs questions, {name} "
            f"weights: median {mid:.2f}, 10-90% {low:.2f}-{high:.2f}"
        )
    return lines


def reads_for(args: argparse.Namespace) -> list[Read]:
    if args.cache and args.cache.exists():
        with args.cache.open("rb") as f:
            cached: list[Read] = pickle.load(f)
        return cached
    from retrieval.embeddings import load_embedder
    from training.reader_data import collect

    reads = collect(args.squad, args.seed, args.state, load_embedder())
    if args.cache:
        with args.cache.open("wb") as f:
            pickle.dump(reads, f)
    return reads


def main(argv: Sequence[str] | None = None) -> int:
    from training.train_reader import SEED, fit_reader, one_hash_seed

    one_hash_seed()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--squad", type=int, default=None, help="SQuAD v2.0 sample (all)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--cache", type=Path, default=None, help="keep the reads here")
    args = parser.parse_args(argv)
    reads = reads_for(args)
    refit, _ = fit_reader(reads, args.squad, args.seed)
    print("\n".join(report(reads, load_model(WEIGHTS), refit)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
