"""Fitting the reader's two models for training/train_reader.py: L2-regularised logistic
regressions fit by Newton's method in numpy.

The ranker is listwise (a softmax over each question's units) and weighs both sources the same
(a 0.7 docs share was measured and reverted: docs/performance.md); the answerer weighs the docs
questions more in total than SQuAD's (ANSWERER_DOCS_SHARE).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from grounding.generators.reader_model import Linear, sigmoid
from grounding.generators.reading import QUESTION_FEATURES, UNIT_FEATURES, question_features
from training.reader_data import Read

L2 = 1.0
# SQuAD v2.0's unanswerable questions share their paragraph's words by design, so missing words
# say little there; docs questions that are not covered mostly name what the docs lack. The
# answerer leans on the docs kind.
ANSWERER_DOCS_SHARE = 0.8
SIGNS = {
    "best_logit": 1,
    "margin": 1,
    "best_semantic": 1,
    "missing_heaviest": -1,
    "missing_rare": -1,
    "file_agreement": 1,
}


def fit(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], w: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """Weighted L2 logistic regression by Newton's method on standardised features.

    A NaN is a feature a row does not define: it is left out of that feature's mean and scale
    and stands at the mean (0 once standardised), as `Linear.logits` reads it."""
    known = ~np.isnan(x)
    filled = np.where(known, x, 0.0)
    rows = w[:, None] * known
    mean = (rows * filled).sum(axis=0) / np.maximum(rows.sum(axis=0), 1e-12)
    spread = (rows * np.where(known, x - mean, 0.0) ** 2).sum(axis=0)
    scale = np.sqrt(spread / np.maximum(rows.sum(axis=0), 1e-12))
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.where(known, (x - mean) / scale, 0.0), np.ones((len(x), 1))])
    beta = np.zeros(z.shape[1])
    w = w / w.mean()
    penalty = np.full(z.shape[1], L2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = sigmoid(z @ beta)
        gradient = z.T @ (w * (p - y)) + penalty * beta
        hessian = (
            (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty) + 1e-9 * np.eye(len(beta))
        )
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return mean, scale, beta[:-1], float(beta[-1])


def fit_grouped(
    groups: Sequence[npt.NDArray[np.float64]],
    targets: Sequence[npt.NDArray[np.float64]],
    w: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A listwise ranker: softmax over each question's units (a conditional logit), fit by
    Newton's method with L2; the target spreads evenly over a question's right units."""
    x = np.vstack(groups)
    rows = np.concatenate([np.full(len(g), wi) for g, wi in zip(groups, w, strict=True)])
    mean = np.average(x, axis=0, weights=rows)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=rows))
    scale[scale < 1e-9] = 1.0
    zs = [(g - mean) / scale for g in groups]
    ts = [t / t.sum() for t in targets]
    w = w / w.mean()
    beta = np.zeros(x.shape[1])

    def loss(b: npt.NDArray[np.float64]) -> float:
        total = 0.5 * L2 * float(b @ b)
        for z, t, wi in zip(zs, ts, w, strict=True):
            s = z @ b
            top = s.max()
            total -= wi * float(t @ (s - top - np.log(np.exp(s - top).sum())))
        return total

    for _ in range(50):
        gradient = L2 * beta
        hessian = L2 * np.eye(len(beta))
        for z, t, wi in zip(zs, ts, w, strict=True):
            s = z @ beta
            p = np.exp(s - s.max())
            p /= p.sum()
            gradient += wi * (z.T @ (p - t))
            zp = z.T @ p
            hessian += wi * ((z * p[:, None]).T @ z - np.outer(zp, zp))
        step = np.linalg.solve(hessian, gradient)
        current, size = loss(beta), 1.0
        while size > 1e-4 and loss(beta - size * step) > current:
            size /= 2  # Newton can overshoot far from the optimum: halve until it descends
        beta = beta - size * step
        if np.abs(size * step).max() < 1e-8:
            break
    return mean, scale, beta


def source_weights(sources: Sequence[str], docs_share: float = 0.5) -> npt.NDArray[np.float64]:
    """`docs_share` of the total weight to the docs questions, the rest to SQuAD."""
    names = np.array(sources)
    out = np.zeros(len(names))
    for name in set(sources):
        mask = names == name
        out[mask] = (docs_share if name == "docs" else 1.0 - docs_share) / mask.sum()
    return out


def train_ranker(reads: Sequence[Read]) -> Linear:
    rows = [r for r in reads if r.example.answerable and r.labels.any()]
    w = source_weights([r.example.source for r in rows])
    mean, scale, weights = fit_grouped([r.reading.units for r in rows], [r.labels for r in rows], w)
    return Linear(UNIT_FEATURES, mean, scale, weights, 0.0)


def train_answerer(reads: Sequence[Read], ranker: Linear) -> Linear:
    x = np.vstack([question_features(r.reading, ranker.logits(r.reading.units)) for r in reads])
    # Answerable here means the packet holds a right unit: when retrieval missed it, refusing
    # is the right answer for this packet.
    y = np.array([float(r.example.answerable and r.labels.any()) for r in reads])
    w = source_weights([r.example.source for r in reads], ANSWERER_DOCS_SHARE)
    return fit_answerer(x, y, w)


def fit_answerer(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    w: npt.NDArray[np.float64],
    features: tuple[str, ...] = QUESTION_FEATURES,
    signs: Mapping[str, int] = SIGNS,
) -> Linear:
    """The answerer over `features` (the columns of `x`), fit to `y` with row weights `w`.

    A feature whose meaning fixes its direction (a better best unit, a rarer missing word)
    keeps that direction: a weight fit the other way is collinearity, and it is dropped."""
    keep = np.ones(len(features), dtype=bool)
    while True:
        mean, scale, part, bias = fit(x[:, keep], y, w)
        weights = np.zeros(len(features))
        weights[keep] = part
        wrong = [i for i, f in enumerate(features) if keep[i] and signs.get(f, 0) * weights[i] < 0]
        if not wrong:
            break
        keep[wrong[0]] = False
    full_mean, full_scale = np.zeros(len(keep)), np.ones(len(keep))
    full_mean[keep], full_scale[keep] = mean, scale
    return Linear(features, full_mean, full_scale, weights, bias)
