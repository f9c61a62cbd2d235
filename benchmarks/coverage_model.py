"""Could a fitted model over a few coverage features replace the verifier's coverage thresholds?

For every train claim (benchmarks/model_answers) that reaches the coverage check (its quotes are
located and every other check passes, as in benchmarks/verifier_fit.py), these features are
computed against the texts `support.check` reads:

- `quoted`, `cited`: the shares coverage.py measures today (found / content words);
- `soft`: the quoted share where a missing word counts (cosine - FLOOR) / (1 - FLOOR) of its
  nearest quoted word in wordllama's token vectors (retrieval/embeddings.py), 0 below FLOOR;
- `idf_share`: the quoted share with each word weighed by its IDF over the corpus's chunks;
- `rare_missing`: missing words in at most RARE of the corpus's chunks;
- `missing_idf`: the summed IDF of the missing words;
- `cosine`: the claim's and the quoted sentences' text vectors.

Faithful claims against `outside_knowledge` ones (the kind coverage is for; the other kinds
have their own checks). Each feature set is fit by training.reader_fit's weighted logistic
regression (the classes weighed alike), scored out of fold (5 folds by answer), and reported as
unfaithful dropped when as many faithful claims are dropped as the shipped thresholds drop
(and at a few more and fewer). Deterministic; nothing is written.
Run: python -m benchmarks.coverage_model [--split train]
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from benchmarks.model_answers.answers import CORPUS_NAMES, ModelClaim, load_answers
from benchmarks.model_answers.run import CHANNEL, TEAM, replay_config
from benchmarks.verifier_fit import supported
from grounding.evidence import EvidenceItem
from grounding.verification.coverage import CITED_THRESHOLD, SUPPORT_THRESHOLD, coverage
from grounding.verification.support import coverage_texts
from retrieval.build import build_index
from retrieval.embeddings import StaticEmbedder, load_embedder
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from training.reader_fit import fit

FLOOR = 0.5
RARE = 0.01
FOLDS = 5
FEATURES = ("quoted", "cited", "soft", "idf_share", "rare_missing", "missing_idf", "cosine")
SETS: tuple[tuple[str, ...], ...] = (
    ("quoted", "cited"),
    ("quoted", "cited", "soft"),
    ("quoted", "cited", "cosine"),
    ("quoted", "cited", "idf_share"),
    ("quoted", "cited", "rare_missing"),
    ("quoted", "cited", "missing_idf"),
    ("quoted", "cited", "soft", "rare_missing"),
    FEATURES,
)


@dataclass(frozen=True, slots=True)
class Row:
    answer: str
    claim: ModelClaim
    features: dict[str, float]


def measure(split: str, state: Path, embedder: StaticEmbedder) -> list[Row]:
    rows: list[Row] = []
    for corpus in CORPUS_NAMES:
        config = replay_config(corpus, state / corpus, "chat")
        build_index(config)
        index = Index.load(config)
        chunks = index.chunks(resolve_scope(config, TEAM, CHANNEL, ConversationKind.CHANNEL))
        idf = _idf([c.text for c in chunks])
        for answer in load_answers(corpus, split):
            files = set(answer.files)
            items = [
                EvidenceItem(f"E{n}", chunk, 1.0, False)
                for n, chunk in enumerate((c for c in chunks if c.path in files), start=1)
            ]
            for claim in answer.claims:
                if claim.faithful or claim.kind == "outside_knowledge":
                    features = _features(claim, items, idf, embedder)
                    if features is not None:
                        rows.append(Row(answer.id, claim, features))
    return rows


def _idf(texts: Sequence[str]) -> Callable[[str], tuple[float, bool]]:
    """A word's IDF over `texts` and whether it is rare there (in at most RARE of them)."""
    df: Counter[str] = Counter()
    for text in texts:
        df.update(set(_words(text)))
    n = len(texts)

    def of(word: str) -> tuple[float, bool]:
        d = df.get(word, 0)
        return math.log((n + 1) / (d + 1)), d <= RARE * n

    return of


def _words(text: str) -> list[str]:
    found, missing = coverage(text, "")
    return [*found, *missing]


def _features(
    claim: ModelClaim,
    items: Sequence[EvidenceItem],
    idf: Callable[[str], tuple[float, bool]],
    embedder: StaticEmbedder,
) -> dict[str, float] | None:
    support, other_problem = supported(claim, items)
    if support is None or other_problem:
        return None
    said, quoted, cited_text = coverage_texts(claim.text, support)
    found, missing = coverage(said, quoted)
    cited_found, cited_missing = coverage(said, cited_text)
    words = [*found, *missing]
    if not words:
        return None
    near = _nearest(missing, _words(quoted), embedder)
    soft = len(found) + sum(max(0.0, (s - FLOOR) / (1 - FLOOR)) for s in near)
    weights = {w: idf(w)[0] for w in words}
    vectors = embedder.embed([said, quoted])
    return {
        "quoted": len(found) / len(words),
        "cited": len(cited_found) / max(1, len(cited_found) + len(cited_missing)),
        "soft": soft / len(words),
        "idf_share": sum(weights[w] for w in found) / max(1e-9, sum(weights.values())),
        "rare_missing": float(sum(idf(w)[1] for w in missing)),
        "missing_idf": sum(weights[w] for w in missing),
        "cosine": float(vectors[0] @ vectors[1]),
    }


def _nearest(
    words: Sequence[str], evidence: Sequence[str], embedder: StaticEmbedder
) -> list[float]:
    """Each word's highest cosine to a word of `evidence`."""
    if not words or not evidence:
        return [0.0] * len(words)
    sims = embedder.embed(list(words)) @ embedder.embed(list(evidence)).T
    return [float(s) for s in sims.max(axis=1)]


def out_of_fold(rows: Sequence[Row], names: Sequence[str]) -> npt.NDArray[np.float64]:
    """Each claim's fitted probability of being unfaithful, from a model fit without its
    answer's fold (answers dealt to folds in sorted order)."""
    x = np.array([[r.features[n] for n in names] for r in rows], dtype=np.float64)
    y = np.array([0.0 if r.claim.faithful else 1.0 for r in rows])
    w = np.where(y == 1, (y == 0).sum() / max(1.0, (y == 1).sum()), 1.0)
    answers = sorted({r.answer for r in rows})
    fold_of = {a: n % FOLDS for n, a in enumerate(answers)}
    folds = np.array([fold_of[r.answer] for r in rows])
    out = np.zeros(len(rows))
    for k in range(FOLDS):
        train = folds != k
        mean, scale, beta, bias = fit(x[train], y[train], w[train])
        logits = ((x[~train] - mean) / scale) @ beta + bias
        out[~train] = 1 / (1 + np.exp(-logits))
    return out


def dropped_at(
    scores: npt.NDArray[np.float64], faithful: npt.NDArray[np.bool_], faithful_dropped: int
) -> tuple[int, int]:
    """(faithful kept, unfaithful dropped) when the `faithful_dropped` faithful claims of the
    highest scores are dropped, and every claim scoring above the next faithful one."""
    ranked = np.sort(scores[faithful])[::-1]
    cut = ranked[min(faithful_dropped, len(ranked) - 1)]
    drop = scores > cut
    return int((~drop & faithful).sum()), int((drop & ~faithful).sum())


def auc(scores: npt.NDArray[np.float64], faithful: npt.NDArray[np.bool_]) -> float:
    pos, neg = scores[~faithful], scores[faithful]
    return float(np.mean([(p > neg).mean() + 0.5 * (p == neg).mean() for p in pos]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test"), default="train")
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-model-answers"))
    args = parser.parse_args(argv)
    rows = measure(args.split, args.state, load_embedder())
    faithful = np.array([r.claim.faithful for r in rows])
    shipped = np.array(
        [
            r.features["quoted"] < SUPPORT_THRESHOLD or r.features["cited"] < CITED_THRESHOLD
            for r in rows
        ]
    )
    base = int((shipped & faithful).sum())
    print(
        f"{len(rows)} {args.split} claims reach coverage: {int(faithful.sum())} faithful, "
        f"{int((~faithful).sum())} outside knowledge"
    )
    print(
        f"shipped thresholds (quoted >= {SUPPORT_THRESHOLD}, cited >= {CITED_THRESHOLD}): "
        f"faithful kept {int((~shipped & faithful).sum())}, "
        f"outside knowledge dropped {int((shipped & ~faithful).sum())}"
    )
    points = (max(0, base - 7), base, base + 8)
    head = " | ".join(f"{p} faithful dropped" for p in points)
    print(f"| features | out-of-fold AUC | {head} |")
    print("|---|---|" + "---|" * len(points))
    for names in SETS:
        scores = out_of_fold(rows, names)
        cells = " | ".join("{} / {}".format(*dropped_at(scores, faithful, p)) for p in points)
        print(f"| {', '.join(names)} | {auc(scores, faithful):.3f} | {cells} |")
    for name in FEATURES:
        values = np.array([r.features[name] for r in rows])
        sign = 1.0 if name in ("rare_missing", "missing_idf") else -1.0
        print(f"{name}: AUC alone {auc(sign * values, faithful):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
