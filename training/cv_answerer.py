"""Cross-validating the reader's answerer by corpus, for training/answerer_misses.py --cv.

Each docs corpus of the train split is held out in turn; the answerer is refit on SQuAD and the
other corpora (train_reader.py's fit: the sign rule, ANSWERER_DOCS_SHARE unless varied), the
ranker fixed as shipped (its logits are what the answerer reads), the extra-passage ratio the
shipped one. The threshold is chosen by the floor rule (reader_threshold.pick_threshold) either
in sample, on the fit's own docs questions as train_reader.py does, or out of fold: on
probabilities of those questions from fits that did not see their corpus. Figures are summed
over the held-out corpora: answered right of the covered, uncovered refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from grounding.generators.reader_model import Linear, sigmoid
from grounding.generators.reading import QUESTION_FEATURES
from training.reader_data import Read
from training.reader_fit import ANSWERER_DOCS_SHARE, SIGNS, fit_answerer, source_weights
from training.reader_threshold import pick_threshold

# The signals answerer_misses.py measures, in its order, and the direction each one's meaning
# fixes, for the sign rule (reader_fit.SIGNS).
SIGNAL_SIGNS = {
    "gate_nearness": 1,
    "scope_absent": -1,
    "best_coverage": 1,
    "best_coverage_headings": 1,
    "best_two_coverage": 1,
    "kind_met": 1,
}
DOCS_SHARES = (0.5, 0.65, 0.8, 0.9, 1.0)


@dataclass
class Row:
    """One question read and judged with the shipped weights, and what it would be judged by."""

    read: Read
    corpus: str  # a docs set's name, or "squad"
    features: npt.NDArray[np.float64]  # QUESTION_FEATURES
    signals: dict[str, float]
    right: bool  # answered, its quoted passages hold an expected string
    probability: float = 0.0  # the shipped answerer's
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def covered(self) -> bool:
        return self.read.example.answerable

    @property
    def target(self) -> float:
        """What the answerer is fit to: the packet holds a right unit."""
        return float(self.read.example.answerable and self.read.labels.any())


@dataclass(frozen=True, slots=True)
class Figures:
    right: int
    covered: int
    refused: int
    uncovered: int

    def __add__(self, other: Figures) -> Figures:
        return Figures(
            self.right + other.right,
            self.covered + other.covered,
            self.refused + other.refused,
            self.uncovered + other.uncovered,
        )

    def __str__(self) -> str:
        return (
            f"{self.right / max(self.covered, 1):.3f} ({self.right}/{self.covered}) / "
            f"{self.refused / max(self.uncovered, 1):.3f} ({self.refused}/{self.uncovered})"
        )


def _design(rows: Sequence[Row], extra: Sequence[str]) -> npt.NDArray[np.float64]:
    columns = [np.array([r.signals[name] for r in rows])[:, None] for name in extra]
    return np.hstack([np.vstack([r.features for r in rows]), *columns])


def fit_on(docs: Sequence[Row], squad: Sequence[Row], extra: Sequence[str], share: float) -> Linear:
    rows = [*docs, *squad]
    weights = source_weights([r.read.example.source for r in rows], share)
    y = np.array([r.target for r in rows])
    features = (*QUESTION_FEATURES, *extra)
    return fit_answerer(_design(rows, extra), y, weights, features, SIGNS | SIGNAL_SIGNS)


def probabilities(model: Linear, rows: Sequence[Row], extra: Sequence[str]) -> list[float]:
    if not rows:
        return []
    p = sigmoid(model.logits(_design(rows, extra)))
    # A packet with no answer units is refused whatever the answerer says (judge_reading).
    return [float(v) if r.read.reading.pool else 0.0 for v, r in zip(p, rows, strict=True)]


def figures(rows: Sequence[Row], probs: Sequence[float], threshold: float) -> Figures:
    answered = [p >= threshold for p in probs]
    return Figures(
        sum(a and r.right for a, r in zip(answered, rows, strict=True)),
        sum(r.covered for r in rows),
        sum((not a) and not r.covered for a, r in zip(answered, rows, strict=True)),
        sum(not r.covered for r in rows),
    )


def _threshold(probs: Sequence[float], rows: Sequence[Row]) -> float:
    return pick_threshold(probs, [r.right for r in rows], [r.covered for r in rows])[1]


def out_of_fold(
    docs: Sequence[Row], squad: Sequence[Row], extra: Sequence[str], share: float
) -> list[float]:
    """Each docs question's probability from a fit on SQuAD and the other corpora only."""
    probs = [0.0] * len(docs)
    for corpus in sorted({r.corpus for r in docs}):
        inside = [i for i, r in enumerate(docs) if r.corpus == corpus]
        rest = [r for r in docs if r.corpus != corpus]
        model = fit_on(rest, squad, extra, share)
        held = probabilities(model, [docs[i] for i in inside], extra)
        for i, p in zip(inside, held, strict=True):
            probs[i] = p
    return probs


def held_out(
    docs: Sequence[Row],
    squad: Sequence[Row],
    extra: Sequence[str] = (),
    share: float = ANSWERER_DOCS_SHARE,
    rule: str = "in sample",
) -> tuple[Figures, dict[str, Figures], list[float]]:
    """Summed and per-corpus figures on each corpus held out, and the thresholds chosen."""
    total, per, thresholds = Figures(0, 0, 0, 0), {}, []
    for corpus in sorted({r.corpus for r in docs}):
        test = [r for r in docs if r.corpus == corpus]
        train = [r for r in docs if r.corpus != corpus]
        model = fit_on(train, squad, extra, share)
        if rule == "in sample":
            threshold = _threshold(probabilities(model, train, extra), train)
        else:
            threshold = _threshold(out_of_fold(train, squad, extra, share), train)
        thresholds.append(threshold)
        per[corpus] = figures(test, probabilities(model, test, extra), threshold)
        total = total + per[corpus]
    return total, per, thresholds


def in_sample(
    docs: Sequence[Row], squad: Sequence[Row], extra: Sequence[str], share: float
) -> tuple[Figures, float]:
    """The fit on every corpus with its own threshold, as train_reader.py does."""
    model = fit_on(docs, squad, extra, share)
    probs = probabilities(model, docs, extra)
    threshold = _threshold(probs, docs)
    return figures(docs, probs, threshold), threshold


def cross_validate(docs: Sequence[Row], squad: Sequence[Row], signals: Sequence[str]) -> list[str]:
    lines = ["== cross-validated by corpus (held-out corpora summed): right / refused"]

    def line(label: str, extra: Sequence[str], share: float, rule: str = "in sample") -> None:
        total, per, thresholds = held_out(docs, squad, extra, share, rule)
        fit, threshold = in_sample(docs, squad, extra, share)
        corpora = " ".join(
            f"{c} {f.right}/{f.covered},{f.refused}/{f.uncovered}" for c, f in per.items()
        )
        lines.append(
            f"{label:36} CV {total}  thresholds {min(thresholds):.2f}-{max(thresholds):.2f}; "
            f"in sample {fit} at {threshold:.2f}\n    {corpora}"
        )

    for share in DOCS_SHARES:
        line(f"docs share {share}", (), share)
    for name in signals:
        line(f"+ {name}", (name,), ANSWERER_DOCS_SHARE)
    line("threshold out of fold", (), ANSWERER_DOCS_SHARE, "out of fold")
    return lines
