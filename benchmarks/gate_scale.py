"""Does the gate's nearness mean the same in a small scope and a big one? Raw BM25 does not.

The Django development questions are searched twice per search setup: in the Django docs alone
(~6.5k chunks) and in one scope holding the Django docs, the Python docs, the PEPs and the
httpx docs (several times as many chunks). For each size it prints the median top raw BM25
score and the median nearness (grounding/gate.py) of the answerable and the uncovered
questions, and the share the fitted gate closes for each kind. Also: the answerable httpx
questions asked of the Django docs (off-topic: the docs do not cover them), gated share.

    python -m benchmarks.gate_scale [--state DIR]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import CORPORA, SETS, Question, load_questions
from grounding.gate import fitted_thresholds, nearness, setup_key
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope

ENGINES = ("bm25", "tantivy")


def scope_config(corpora: Sequence[str], engine: str, dense: bool, state: Path) -> Config:
    root = state / f"{'+'.join(corpora)}-{engine}"
    root.mkdir(parents=True, exist_ok=True)
    lines = [
        f"state_dir: {json.dumps(str(root / 'state'))}",
        "teams: [T0BENCH]",
        f"search: {{engine: {engine}}}",
        f"retrieval: {{dense: {str(dense).lower()}}}",
        "collections:",
    ]
    for corpus in corpora:
        folder, exclude = SETS[corpus]
        lines += [
            f"  - name: {corpus}",
            f"    path: {json.dumps(str((CORPORA / folder).resolve()))}",
            f"    exclude: {json.dumps(list(exclude))}",
        ]
    path = root / f"docbot-{'dense' if dense else 'bm25'}.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_config(path)


def measure(
    config: Config, questions: Sequence[Question]
) -> tuple[int, list[tuple[Question, float, float]], str]:
    """(chunks in scope, [(question, top raw BM25, nearness)], setup)."""
    index = Index.load(config)
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
    rows = []
    for q in questions:
        lexical, _ = index.candidates(q.question, scope, 1)
        hits = index.search(q.question, scope, config.answer.k)
        top = lexical[0][1] if lexical else 0.0
        rows.append((q, top, nearness(q.question, hits, index, scope)))
    setup = setup_key(index.engine_name(scope), config.retrieval.dense)
    return len(index.chunks(scope)), rows, setup


def _median(values: list[float]) -> str:
    return f"{float(np.median(values)):.3f}" if values else "n/a"


def _share(flags: list[bool]) -> str:
    return f"{sum(flags) / len(flags):.3f} ({sum(flags)}/{len(flags)})" if flags else "n/a"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-gate-scale"))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    thresholds = fitted_thresholds()
    django = load_questions("django")
    off_topic = [q for q in load_questions("httpx") if q.answerable]
    sizes = (("django",), ("django", "httpx", "peps", "python"))
    print(
        "size  setup  chunks  | median top BM25 ans/unc | median nearness ans/unc | gated ans / unc"
    )
    for engine in ENGINES:
        for corpora in sizes:
            build_index(scope_config(corpora, engine, True, args.state))
            for dense in (False, True):
                config = scope_config(corpora, engine, dense, args.state)
                chunks, rows, setup = measure(config, django)
                t = thresholds[setup]
                ans = [(top, near) for q, top, near in rows if q.answerable]
                unc = [(top, near) for q, top, near in rows if not q.answerable]
                print(
                    f"{len(corpora)} corpora  {setup:<14} {chunks:>6}  | "
                    f"{_median([a for a, _ in ans])} / {_median([a for a, _ in unc])} | "
                    f"{_median([n for _, n in ans])} / {_median([n for _, n in unc])} | "
                    f"{_share([n < t for _, n in ans])} / {_share([n < t for _, n in unc])}"
                )
                if corpora == ("django",):
                    _, far, _ = measure(config, off_topic)
                    print(
                        f"    httpx questions asked of the Django docs: gated "
                        f"{_share([n < t for _, _, n in far])}"
                    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
