"""Would one answerer scale across collections help? Measured on the train split, no labels used
by the correction.

Each corpus's answerer probabilities sit at their own level (docs/performance-answerer.md, h8's
diagnosis), and one pooled threshold then refuses the answerable questions of the corpora whose
level is low. A deployed docbot has no labelled questions for a team's collection, so a
correction must come from the collection itself. This script computes one such correction and
scores it against what labels would allow:
- probes: up to PROBES of the collection's own section headings (every n-th of the sorted
  distinct headings), each asked through the real pipeline and read by the shipped reader; the
  mean of their answerer logits is the collection's level, and every question's logit is
  shifted by its collection's level less the mean level over the collections (`share` scales
  the shift);
- for reference, with labels (not deployable): the shift that puts each corpus's midpoint of
  right first passages and uncovered questions at the common mean, and the ceiling of any
  per-collection threshold (each corpus's own threshold, chosen with its labels, the pooled
  refusal floor held).
For each: the pooled AUC (right first passages vs uncovered), the within-corpus AUC weighted by
pairs (what a perfect level correction would reach), and answered right / uncovered refused at
the floor rule's threshold (training/reader_threshold.py).

    python training/collection_levels.py [--state DIR] [--probes N]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.dev_questions import SETS, corpus_config
from grounding.generators.extractive import judge_reading
from grounding.generators.reader_model import ReaderModel, load_model
from grounding.generators.reading import read
from retrieval.embeddings import load_embedder
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from training.answerer_misses import auc, docs_rows
from training.reader_data import packets
from training.reader_threshold import REFUSAL_FLOOR, pick_threshold

PROBES = 60
Vector = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Scored:
    """One train question: its corpus, the answerer's logit (None: nothing to read), whether its
    quoted passages would hold the answer, and whether the docs cover it."""

    corpus: str
    logit: float | None
    right: bool
    covered: bool


def logit(probability: float) -> float:
    p = min(max(probability, 1e-9), 1.0 - 1e-9)
    return float(np.log(p / (1.0 - p)))


def centred(levels: Mapping[str, float], share: float = 1.0) -> dict[str, float]:
    """Each collection's shift: `share` of its level less the mean level."""
    mean = float(np.mean(list(levels.values())))
    return {c: share * (v - mean) for c, v in levels.items()}


def shifted(rows: Sequence[Scored], shift: Mapping[str, float]) -> Vector:
    """Each question's logit less its collection's shift; nothing to read stays refused."""
    return np.array([-50.0 if r.logit is None else r.logit - shift[r.corpus] for r in rows])


def separation(rows: Sequence[Scored], logits: Vector) -> tuple[float, float]:
    """(pooled AUC, within-corpus AUC weighted by pairs), right first passages vs uncovered."""
    pooled = auc(
        [v for v, r in zip(logits, rows, strict=True) if r.right],
        [v for v, r in zip(logits, rows, strict=True) if not r.covered],
    )
    total = weight = 0.0
    for corpus in sorted({r.corpus for r in rows}):
        pos = [v for v, r in zip(logits, rows, strict=True) if r.corpus == corpus and r.right]
        neg = [v for v, r in zip(logits, rows, strict=True) if r.corpus == corpus and not r.covered]
        if pos and neg:
            total += len(pos) * len(neg) * auc(pos, neg)
            weight += len(pos) * len(neg)
    return pooled, total / weight if weight else float("nan")


def at_floor(rows: Sequence[Scored], logits: Vector) -> tuple[float, str]:
    """The floor rule's threshold on these logits, and what it answers and refuses."""
    probabilities = list(1.0 / (1.0 + np.exp(-logits)))
    _, threshold, summary = pick_threshold(
        probabilities, [r.right for r in rows], [r.covered for r in rows]
    )
    return threshold, summary


def ceiling(rows: Sequence[Scored], grid: Vector) -> tuple[int, int, dict[str, float]]:
    """The most right answers any per-collection logit thresholds give with the pooled refusal
    floor held, the thresholds chosen WITH the labels (a Lagrangian sweep): (right, refused,
    thresholds). An upper bound on what a per-collection correction could recover in sample."""
    corpora = sorted({r.corpus for r in rows})
    n_unc = max(sum(not r.covered for r in rows), 1)

    def counts(corpus: str, t: float) -> tuple[int, int]:
        part = [r for r in rows if r.corpus == corpus]
        answered = [r.logit is not None and r.logit >= t for r in part]
        ok = sum(a and r.right for a, r in zip(answered, part, strict=True))
        return ok, sum(not a and not r.covered for a, r in zip(answered, part, strict=True))

    table = {c: {float(t): counts(c, float(t)) for t in grid} for c in corpora}
    best: tuple[int, int, dict[str, float]] = (-1, 0, {})
    for price in np.arange(0.0, 6.01, 0.05):
        choice = {c: _best(table[c], float(price)) for c in corpora}
        ok = sum(table[c][choice[c]][0] for c in corpora)
        refused = sum(table[c][choice[c]][1] for c in corpora)
        if refused / n_unc >= REFUSAL_FLOOR - 1e-9 and ok > best[0]:
            best = (ok, refused, choice)
    return best


def _best(counts: Mapping[float, tuple[int, int]], price: float) -> float:
    """The threshold most right answers plus `price` per refused uncovered question."""
    return max(counts, key=lambda t: counts[t][0] + price * counts[t][1])


def probe_level(corpus: str, state: Path, model: ReaderModel, n: int) -> tuple[float, int]:
    """The mean answerer logit of up to `n` of the corpus's own headings asked as questions, and
    how many were asked."""
    config = corpus_config(corpus, state / corpus)
    index = Index.load(config)
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
    headings = sorted({c.heading for c in index.chunks(scope) if c.heading.strip()})
    asked = headings[:: max(1, len(headings) // n)][:n]
    embedder = load_embedder()
    logits = [
        logit(judge_reading(read(p, embedder), model).answerable)
        for p in packets(config, asked)
        if p is not None
    ]
    return float(np.mean(logits)), len(logits)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--probes", type=int, default=PROBES)
    args = parser.parse_args(argv)
    model = load_model()
    corpora = sorted(SETS)
    rows = [
        Scored(r.corpus, logit(r.probability) if r.read.reading.pool else None, r.right, r.covered)
        for r in docs_rows(corpora, args.state, model)
    ]
    probes = {c: probe_level(c, args.state, model, args.probes) for c in corpora}
    for c in corpora:
        own = [r.logit for r in rows if r.corpus == c and r.logit is not None]
        level, n = probes[c]
        questions = float(np.mean(own))
        print(f"{c:12} probe level {level:+.2f} ({n} headings), train questions' {questions:+.2f}")
    levels = {c: level for c, (level, _) in probes.items()}
    midpoints = {}
    for c in corpora:
        right = [r.logit for r in rows if r.corpus == c and r.right and r.logit is not None]
        unc = [r.logit for r in rows if r.corpus == c and not r.covered and r.logit is not None]
        midpoints[c] = 0.5 * (float(np.mean(right)) + float(np.mean(unc)))
    variants = {
        "none": {c: 0.0 for c in corpora},
        "probe level shift": centred(levels),
        "probe level shift x0.5": centred(levels, 0.5),
        "LABELS: midpoint shift": centred(midpoints),
    }
    for name, shift in variants.items():
        logits = shifted(rows, shift)
        pooled, within = separation(rows, logits)
        threshold, summary = at_floor(rows, logits)
        print(f"{name:24} AUC pooled {pooled:.3f} (within {within:.3f}); at {threshold}: {summary}")
    ok, refused, thresholds = ceiling(rows, np.arange(-4.0, 4.01, 0.05))
    n_cov, n_unc = sum(r.covered for r in rows), sum(not r.covered for r in rows)
    print(f"LABELS: per-corpus thresholds, ceiling: right {ok}/{n_cov}, refused {refused}/{n_unc}")
    print("  " + ", ".join(f"{c} {t:+.2f}" for c, t in thresholds.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
