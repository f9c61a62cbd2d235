"""List the docs train questions the answerer decides wrongly, and measure what would separate
them, so that an answerer change is aimed at a pattern seen over many questions.

From the `train` split only (the test split is never read), with the shipped weights:
- answerable questions whose quoted passages would hold an expected string (a right first
  passage) but whose answerer probability is under the threshold: refused;
- uncovered questions whose probability reaches it: answered.
Each is printed with its question features, their contributions to the answerer's logit
(standardised value times weight), its probability, and candidate signals the answerer does
not read (`SIGNALS`: the gate's nearness over the scope, the share of the question's weight no
chunk of the scope holds, how much of the question the best unit or the best two cover).
Then each feature's and signal's AUC between the right first passages and the uncovered
questions, per corpus and over all.

With `--cv` it also reads the SQuAD v2.0 sample train_reader.py reads and cross-validates the
answerer by corpus (each docs corpus held out in turn, the answerer refit on SQuAD and the
other corpora, the ranker fixed as shipped): the docs share of the answerer's loss, each
signal added to QUESTION_FEATURES, and the threshold chosen in sample or from probabilities
the fit did not see.

    python training/answerer_misses.py [--corpus NAME ...] [--state DIR] [--cv] [--quiet]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.dev_questions import SETS, corpus_config
from grounding.gate import GATE_TERMS, idf, nearness
from grounding.generators.extractive import judge_reading
from grounding.generators.question import Kind, language
from grounding.generators.reader_model import ReaderModel, load_model
from grounding.generators.reading import QUESTION_FEATURES, UNIT_FEATURES, question_features
from retrieval.config import Config
from retrieval.embeddings import load_embedder
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from training.cv_answerer import SIGNAL_SIGNS, Row, cross_validate
from training.reader_data import Read, docs_reads, squad_config, squad_reads
from training.reader_threshold import holds

SIGNALS = tuple(SIGNAL_SIGNS)  # the gate's two, then the best units' (_unit_signals)
_KIND_FEATURES = {
    Kind.VALUE: "value_has_number",
    Kind.NAME: "name_has_code",
    Kind.HOWTO: "howto_shows_how",
}


class ScopeStats:
    """One collection's index, searched as the pipeline searches it, for the gate's signals."""

    def __init__(self, config: Config) -> None:
        self.index = Index.load(config)
        self.scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
        self.k = config.answer.k

    def signals(self, question: str) -> tuple[float, float]:
        """The gate's nearness, and the idf share of the question's gate terms no chunk holds."""
        hits = self.index.search(question, self.scope, self.k)
        near = nearness(question, hits, self.index, self.scope)
        terms = sorted(set(GATE_TERMS(question)))
        if not terms or language(question) != "en":
            # As the gate reads it: a word of another language is in no English chunk.
            return near, 0.0
        documents, frequencies = self.index.frequencies(terms, self.scope)
        weights = [idf(documents, f) for f in frequencies]
        total = sum(weights) or 1.0
        return near, sum(w for w, f in zip(weights, frequencies, strict=True) if f == 0) / total


def row(read_: Read, corpus: str, model: ReaderModel, stats: ScopeStats) -> Row:
    reading = read_.reading
    logits = model.ranker.logits(reading.units)
    features = question_features(reading, logits)
    judged = judge_reading(reading, model)
    howto = Kind.HOWTO in reading.asked.kinds
    right = read_.example.answerable and holds(read_, judged.ranked, howto, model.extra_ratio)
    near, absent = stats.signals(read_.example.question)
    signals = {"gate_nearness": near, "scope_absent": absent}
    signals.update(_unit_signals(read_, logits))
    return Row(read_, corpus, features, signals, right, judged.answerable)


def _unit_signals(read_: Read, logits: npt.NDArray[np.float64]) -> dict[str, float]:
    reading = read_.reading
    if not reading.pool:
        return {name: 0.0 for name in SIGNALS[2:]}
    order = np.argsort(-logits, kind="stable")
    total = sum(reading.weights.values()) or 1.0

    def share(terms: set[str]) -> float:
        return sum(w for t, w in reading.weights.items() if t in terms) / total

    def around(i: int) -> set[str]:
        c = reading.pool[i]
        return set(c.terms) | c.context | c.lead_in

    best = int(order[0])
    two = around(best) | (around(int(order[1])) if len(order) > 1 else set())
    asked = [f for k, f in _KIND_FEATURES.items() if k in reading.asked.kinds]
    unit = reading.units[best]
    met = max((unit[UNIT_FEATURES.index(f)] for f in asked), default=1.0)
    return {
        "best_coverage": share(set(reading.pool[best].terms)),
        "best_coverage_headings": share(around(best)),
        "best_two_coverage": share(two),
        "kind_met": float(met),
    }


def auc(positive: Sequence[float], negative: Sequence[float]) -> float:
    """P(a positive scores above a negative), ties counting half."""
    if not positive or not negative:
        return float("nan")
    p, n = np.asarray(positive)[:, None], np.asarray(negative)[None, :]
    return float((p > n).mean() + 0.5 * (p == n).mean())


def describe(r: Row, model: ReaderModel) -> str:
    answerer = model.answerer
    z = (r.features - answerer.mean) / answerer.scale * answerer.weights
    parts = " ".join(
        f"{f}={v:.2f}({c:+.2f})" for f, v, c in zip(QUESTION_FEATURES, r.features, z, strict=True)
    )
    signals = " ".join(f"{k}={v:.2f}" for k, v in r.signals.items())
    kinds = ",".join(sorted(r.read.reading.asked.kinds)) or "-"
    return (
        f"[{r.corpus}] p={r.probability:.2f} kinds={kinds} {r.read.example.question!r}\n"
        f"    {parts}\n    {signals}"
    )


def separation(rows: Sequence[Row]) -> list[str]:
    """Each feature's and signal's AUC, right first passages against uncovered questions."""
    names = [*QUESTION_FEATURES, *SIGNALS, "probability"]
    corpora = sorted({r.corpus for r in rows})
    lines = ["AUC, right first passage vs uncovered (0.5: no separation; under 0.5: lower is "]
    lines[0] += "better)"
    lines.append(f"{'':24}" + "".join(f"{c[:11]:>12}" for c in [*corpora, "all"]))
    for name in names:
        cells = []
        for corpus in [*corpora, "all"]:
            part = [r for r in rows if corpus in ("all", r.corpus)]
            pos = [_value(r, name) for r in part if r.right]
            neg = [_value(r, name) for r in part if not r.read.example.answerable]
            cells.append(f"{auc(pos, neg):12.2f}")
        lines.append(f"{name:24}" + "".join(cells))
    return lines


def _value(r: Row, name: str) -> float:
    if name == "probability":
        return r.probability
    if name in r.signals:
        return r.signals[name]
    return float(r.features[QUESTION_FEATURES.index(name)])


def docs_rows(corpora: Sequence[str], state: Path, model: ReaderModel) -> list[Row]:
    embedder = load_embedder()
    out = []
    for corpus in corpora:
        reads = docs_reads(corpus, state, embedder)  # builds the index when it is not yet
        stats = ScopeStats(corpus_config(corpus, state / corpus))
        out += [row(r, corpus, model, stats) for r in reads]
    return out


def squad_rows(squad: int, seed: int, model: ReaderModel) -> list[Row]:
    """train_reader.py's SQuAD v2.0 sample, read and judged as the docs questions are."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        reads = squad_reads(squad, seed, folder, load_embedder())
        stats = ScopeStats(squad_config(folder))
        return [row(r, "squad", model, stats) for r in reads]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=sorted(SETS))
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--cv", action="store_true", help="cross-validate by corpus (reads SQuAD)")
    parser.add_argument("--squad", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--quiet", action="store_true", help="no per-question lists")
    args = parser.parse_args(argv)
    model = load_model()
    rows = docs_rows(sorted(SETS) if args.cv else args.corpus, args.state, model)
    threshold = model.threshold
    refused = [r for r in rows if r.right and r.probability < threshold]
    answered = [r for r in rows if not r.read.example.answerable and r.probability >= threshold]
    n_right = sum(r.right for r in rows)
    n_unc = sum(not r.read.example.answerable for r in rows)
    if not args.quiet:
        print(f"== refused though the first passage is right ({len(refused)} of {n_right})")
        for r in sorted(refused, key=lambda r: (r.corpus, -r.probability)):
            print(describe(r, model))
        print(f"== uncovered, answered ({len(answered)} of {n_unc})")
        for r in sorted(answered, key=lambda r: (r.corpus, -r.probability)):
            print(describe(r, model))
    print(f"threshold {threshold}: {len(refused)} of {n_right} right first passages refused, ")
    print(f"{len(answered)} of {n_unc} uncovered answered")
    print("\n".join(separation(rows)))
    if args.cv:
        squad = squad_rows(args.squad, args.seed, model)
        print("\n".join(cross_validate(rows, squad, SIGNALS)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
