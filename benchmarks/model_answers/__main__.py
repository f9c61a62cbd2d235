"""Replay the model answers through `docbot ask`'s path and print kept/dropped rates by kind.

Each corpus's index is built from ../shared/corpora (read in place) under --state, once, and
reused while the files are unchanged. Tune on --split train; report --split test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from benchmarks.corpora import corpora_absent
from benchmarks.model_answers.answers import BATCHES, CORPUS_NAMES, load_answers
from benchmarks.model_answers.figures import figures, misses, table
from benchmarks.model_answers.run import APIS, ClaimOutcome, replay, replay_config
from retrieval.index import build_index


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test", "all"), default="train")
    parser.add_argument("--api", choices=APIS, nargs="*", default=list(APIS))
    parser.add_argument("--corpus", choices=CORPUS_NAMES, nargs="*", default=list(CORPUS_NAMES))
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-model-answers"))
    parser.add_argument(
        "--batch",
        choices=BATCHES,
        nargs="*",
        default=list(BATCHES),
        help="only answers written in these batches (first, s8, s9, s11: the figures of one batch)",
    )
    parser.add_argument("--misses", action="store_true", help="list the verifier's mistakes")
    args = parser.parse_args(argv)
    if args.misses and args.split != "train":
        print("--misses lists train-split answers only: test is for measuring", file=sys.stderr)
        return 2
    if corpora_absent():
        return 2
    everything: list[ClaimOutcome] = []
    for api in args.api:
        outcomes: list[ClaimOutcome] = []
        for corpus in args.corpus:
            answers = load_answers(corpus, args.split, tuple(args.batch))
            if not answers:
                continue
            config = replay_config(corpus, args.state / corpus, api)
            started = time.perf_counter()
            build_index(config)
            ready = time.perf_counter() - started
            started = time.perf_counter()
            outcomes += replay(config, answers)
            took = time.perf_counter() - started
            print(
                f"{corpus} on {api}: {len(answers)} answers replayed in {took:.1f} s "
                f"(index ready in {ready:.1f} s)"
            )
        label = f"{args.split} split, {api} API, batches {'+'.join(args.batch)}"
        print(f"\n{label}:\n{table(figures(outcomes))}\n")
        if args.misses:
            print("\n".join(misses(outcomes)) or "  no misses", end="\n\n")
        everything += outcomes
    if len(args.api) > 1:
        print(f"{args.split} split, both APIs, batches {'+'.join(args.batch)}:")
        print(table(figures(everything)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
