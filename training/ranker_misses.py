"""List the docs train questions the ranker loses: a right unit is in the packet, yet the
passages the reader would quote hold no expected string.

For each such question it prints the unit ranked first and the best-ranked right unit (kind,
file, headings, ranker logit, text) with both units' features; then, over all of them, where
those units sit among the packet's items, and how often a right unit is ranked first at all.
A ranker change is so aimed at a pattern seen over many questions, never at one question. It
reads the shipped weights (`grounding/generators/reader_weights.json`) and the `train` split
only: the test split is never read, as for every script that tunes the reader.

    python training/ranker_misses.py [--corpus NAME ...] [--state DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.dev_questions import SETS
from grounding.generators import claims
from grounding.generators.extractive import judge_reading
from grounding.generators.question import Kind
from grounding.generators.reader_model import ReaderModel, load_model
from grounding.generators.reading import UNIT_FEATURES
from grounding.generators.segmentation import UnitKind
from grounding.generators.units import Candidate
from retrieval.embeddings import load_embedder
from training.reader_data import Read, docs_reads
from training.reader_threshold import holds


@dataclass(frozen=True, slots=True)
class Ranked:
    candidate: Candidate
    logit: float
    features: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Miss:
    question: str
    kinds: tuple[str, ...]
    units: int  # answer units in the packet
    right_rank: int  # 0-based place of the best-ranked right unit
    chosen: Ranked
    right: Ranked


def misses(reads: Sequence[Read], model: ReaderModel) -> list[Miss]:
    """The answerable reads with a right unit whose quoted passages hold no expected string."""
    out = []
    for r in reads:
        if not r.example.answerable or not r.labels.any():
            continue
        judged = judge_reading(r.reading, model)
        howto = Kind.HOWTO in r.reading.asked.kinds
        if holds(r, judged.ranked, howto, model.extra_ratio):
            continue
        logits = model.ranker.logits(r.reading.units)
        order = ranked_order(r, judged.ranked)
        place = next(k for k, i in enumerate(order) if r.labels[i])

        first, right = (
            Ranked(r.reading.pool[i], float(logits[i]), tuple(float(v) for v in r.reading.units[i]))
            for i in (order[0], order[place])
        )
        kinds = tuple(sorted(r.reading.asked.kinds))
        out.append(Miss(r.example.question, kinds, len(order), place, first, right))
    return out


def first_right(reads: Sequence[Read], model: ReaderModel) -> int:
    """How many answerable reads with a right unit have one ranked first."""
    return sum(
        bool(r.labels[ranked_order(r, judge_reading(r.reading, model).ranked)[0]])
        for r in reads
        if r.example.answerable and r.labels.any()
    )


def ranked_order(r: Read, ranked: Sequence[claims.Ranked]) -> list[int]:
    """The generator's ranking of the reading's units, as indexes into its pool."""
    where = {id(c): i for i, c in enumerate(r.reading.pool)}
    return [where[id(x.candidate)] for x in ranked]


def places(found: Sequence[Miss]) -> str:
    """Where the losses' first and right units sit among the packet's items (retrieval's order)."""
    first0 = sum(m.chosen.candidate.item_index == 0 for m in found)
    later = sum(m.right.candidate.item_index > m.chosen.candidate.item_index for m in found)
    section = sum(
        (m.right.candidate.item_index, m.right.candidate.headings)
        == (m.chosen.candidate.item_index, m.chosen.candidate.headings)
        for m in found
    )
    return (
        f"the first unit is in the packet's first item in {first0}, the right unit in a later "
        f"item in {later}, in the first unit's own section in {section}"
    )


def describe(miss: Miss, width: int = 300) -> str:
    lines = [
        f"{miss.question!r} kinds={','.join(miss.kinds) or '-'}: right unit ranked "
        f"{miss.right_rank + 1} of {miss.units}"
    ]
    for tag, unit in (("first", miss.chosen), ("right", miss.right)):
        c = unit.candidate
        text = " ".join(c.unit.text.split())[:width]
        lines.append(
            f"  {tag} [{c.unit.kind} {c.item.chunk.path} | {c.headings[:60]}] "
            f"logit {unit.logit:+.2f}: {text}"
        )
        pairs = zip(UNIT_FEATURES, unit.features, strict=True)
        lines.append("    " + " ".join(f"{name}={value:.2f}" for name, value in pairs))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=sorted(SETS))
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    args = parser.parse_args(argv)
    embedder = load_embedder()
    reads = [r for corpus in args.corpus for r in docs_reads(corpus, args.state, embedder)]
    model = load_model()
    found = misses(reads, model)
    answerable = sum(r.example.answerable for r in reads)
    held = sum(r.example.answerable and bool(r.labels.any()) for r in reads)
    for miss in found:
        print(describe(miss))
    code = sum(m.chosen.candidate.unit.kind is UnitKind.CODE for m in found)
    print(
        f"{len(found)} of {held} answerable train questions with a right unit in the packet "
        f"({answerable} answerable) quote no expected string; {code} of them quote code first; "
        f"{places(found)}"
    )
    print(f"a right unit is ranked first for {first_right(reads, model)} of {held}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
