"""Fit the gate's nearness threshold per search setup: grounding/gate_thresholds.json.

For each search setup (engine bm25 or tantivy, dense vectors on or off), every development
question (benchmarks/questions/) is searched through the real index of its corpus, and the
nearness of its hits (grounding/gate.py) is recorded. On the `train` split, the threshold is the
highest one that gates at most MAX_ANSWERABLE_GATED of the answerable questions: a wrongly gated
question loses an answer the model could have given, while an uncovered question that passes
still meets the generator's own refusal, so the gate leans towards letting questions through.
The `test` split is only reported (uncovered gated, answerable gated), never fit on. The
smallest corpus's size in chunks is written as `min_scope_chunks`: the gate is not applied to a
scope smaller than any it was fit on.

    python training/fit_gate.py [--state DIR] [--out PATH] [--corpus NAME ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import CORPORA, SETS, Question, corpus_state, load_questions
from grounding.gate import GATE_HITS, THRESHOLDS_FILE, nearness, setup_key
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope

ENGINES = ("bm25", "tantivy")
MAX_ANSWERABLE_GATED = 0.05


@dataclass(frozen=True, slots=True)
class Point:
    setup: str
    question: Question
    nearness: float


def setup_config(corpus: str, engine: str, dense: bool, state: Path) -> Config:
    """The dev corpus's collection with `engine` forced; one state folder per engine (dense on
    and off share it: the vectors are only read when dense is on)."""
    folder, exclude = SETS[corpus]
    root = corpus_state(corpus, state / f"{corpus}-{engine}")
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"docbot{'' if dense else '-bm25only'}.yml"
    path.write_text(
        f"state_dir: {json.dumps(str(root / 'state'))}\nteams: [T0BENCH]\n"
        f"search: {{engine: {engine}}}\nretrieval: {{dense: {str(dense).lower()}}}\n"
        f"collections:\n  - name: {corpus}\n"
        f"    path: {json.dumps(str((CORPORA / folder).resolve()))}\n"
        f"    exclude: {json.dumps(list(exclude))}\n",
        encoding="utf-8",
    )
    return load_config(path)


def measure(corpora: Sequence[str], state: Path) -> tuple[list[Point], dict[str, int]]:
    """Every question's nearness by setup, and the size (chunks) of each corpus's scope."""
    points, sizes = [], {}
    for corpus in corpora:
        questions = load_questions(corpus)
        for engine in ENGINES:
            build_index(setup_config(corpus, engine, True, state))
            for dense in (False, True):
                config = setup_config(corpus, engine, dense, state)
                index = Index.load(config)
                scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
                key = setup_key(index.engine_name(scope), dense)
                sizes[corpus], _ = index.frequencies((), scope)
                for q in questions:
                    hits = index.search(q.question, scope, config.answer.k)
                    points.append(Point(key, q, nearness(q.question, hits, index, scope)))
    return points, sizes


def fit(points: Sequence[Point]) -> float:
    """The highest threshold gating at most MAX_ANSWERABLE_GATED of the answerable points: the
    midpoint below the next answerable nearness value, so a value seen in training passes."""
    answerable = sorted(p.nearness for p in points if p.question.answerable)
    allowed = int(MAX_ANSWERABLE_GATED * len(answerable))
    if not answerable:
        return 0.0
    # Gating the `allowed` lowest is within budget; the next one must pass.
    passing = answerable[allowed]
    below = [v for v in answerable[:allowed] if v < passing]
    return round((max(below) + passing) / 2, 4) if below else round(passing / 2, 4)


def rates(points: Sequence[Point], threshold: float) -> dict[str, str]:
    def share(flags: list[bool]) -> str:
        return f"{sum(flags) / len(flags):.3f} ({sum(flags)}/{len(flags)})" if flags else "n/a"

    gated = [(p, p.nearness < threshold) for p in points]
    return {
        "uncovered gated": share([g for p, g in gated if not p.question.answerable]),
        "answerable gated": share([g for p, g in gated if p.question.answerable]),
        "non-English answerable gated": share(
            [g for p, g in gated if p.question.answerable and p.question.lang != "en"]
        ),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-fit-gate"))
    parser.add_argument("--out", type=Path, default=THRESHOLDS_FILE)
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=sorted(SETS))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    points, sizes = measure(args.corpus, args.state)
    thresholds, report = {}, {}
    for setup in sorted({p.setup for p in points}):
        train = [p for p in points if p.setup == setup and p.question.split == "train"]
        test = [p for p in points if p.setup == setup and p.question.split == "test"]
        thresholds[setup] = fit(train)
        report[setup] = {
            "train": rates(train, thresholds[setup]),
            "test": rates(test, thresholds[setup]),
        }
        print(f"{setup}: threshold {thresholds[setup]}")
        for split in ("train", "test"):
            figures = ", ".join(f"{k} {v}" for k, v in report[setup][split].items())
            print(f"  {split}: {figures}")
    args.out.write_text(
        json.dumps(
            {
                "fit_by": "training/fit_gate.py",
                "split": "train (benchmarks/questions, dev_questions.split_of)",
                "corpora": list(args.corpus),
                "gate_hits": GATE_HITS,
                "max_answerable_gated": MAX_ANSWERABLE_GATED,
                "scope_chunks": sizes,
                # The gate closes on no smaller scope: below it the thresholds were never fit.
                "min_scope_chunks": min(sizes.values()),
                "thresholds": thresholds,
                "report": report,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
