"""Fit `grounding.retriever.RELEASE_NOTE_CAP` on the development sets' train split.

Release notes of old versions (Django's releases/*.txt, Python's whatsnew/*.rst) name almost
every setting and API, so they rank high for questions about how things are now and fill the
evidence packet. The cap is how many of one question's hits may be release notes (recognised
by `retrieval.release_notes`, a version in the file name or a heading). Each cap of the grid
runs the real pipeline (default `answer:` settings, the shipped reader) on the train split
only; the chosen cap has the most answered right + uncovered refused, then the most questions
with an expected file in the packet, then the highest cap (the least change). Also printed:
the questions whose expected files include a release note, which must still reach one.

    python -m benchmarks.release_note_cap [--state DIR] [--caps none 0 1 2 ...]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import SETS, Question, ask_all, corpus_config, load_questions
from grounding.answer import Answer, AnswerStatus
from grounding.evaluation.scoring import answered_right
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.index import build_index
from retrieval.release_notes import is_release_note

GRID: tuple[int | None, ...] = (None, 0, 1, 2, 3, 4, 6)


def in_packet(answer: Answer, files: Sequence[str]) -> bool:
    """One of `files` is among the retrieved chunks the packet kept (not omitted)."""
    omitted = {o.chunk_id for o in answer.omitted}
    return any(r.path in files for r in answer.retrieved if r.chunk_id not in omitted)


def score(results: Sequence[tuple[Question, Answer]]) -> dict[str, int]:
    covered = [(q, a) for q, a in results if q.answerable]
    about_releases = [
        (q, a) for q, a in covered if any(is_release_note(path, ()) for path in q.expected)
    ]
    release_files = [
        (a, [p for p in q.expected if is_release_note(p, ())]) for q, a in about_releases
    ]
    return {
        "answerable": len(covered),
        "right": sum(answered_right(a, q) for q, a in covered),
        "uncovered": len(results) - len(covered),
        "refused": sum(a.status is AnswerStatus.NOT_FOUND for q, a in results if not q.answerable),
        "in_packet": sum(in_packet(a, q.expected) for q, a in covered),
        "about_releases": len(about_releases),
        "about_releases_right": sum(answered_right(a, q) for q, a in about_releases),
        "release_note_in_packet": sum(in_packet(a, files) for a, files in release_files),
    }


def chosen(scores: dict[int | None, dict[str, int]]) -> int | None:
    def key(cap: int | None) -> tuple[int, int, float]:
        s = scores[cap]
        return (s["right"] + s["refused"], s["in_packet"], float("inf") if cap is None else cap)

    return max(scores, key=key)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--caps", nargs="*", default=[str(c).lower() for c in GRID])
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    caps = [None if c == "none" else int(c) for c in args.caps]
    generator = ExtractiveGenerator()
    results: dict[int | None, list[tuple[Question, Answer]]] = {cap: [] for cap in caps}
    for corpus in sorted(SETS):
        questions = [q for q in load_questions(corpus) if q.split == "train"]
        config = corpus_config(corpus, args.state / corpus)
        build_index(config)
        for cap in caps:
            answers = ask_all(config, questions, generator, release_note_cap=cap)
            results[cap].extend(zip(questions, (a for a, _ in answers), strict=True))
    scores = {cap: score(results[cap]) for cap in caps}
    print("train split; cap: answered right, uncovered refused, expected file in packet,")
    print("  questions expecting a release note: answered right, a release note in packet")
    for cap, s in scores.items():
        print(
            f"  cap {cap!s:>4}: right {s['right']}/{s['answerable']}, "
            f"refused {s['refused']}/{s['uncovered']}, in packet {s['in_packet']}/"
            f"{s['answerable']}; about releases right {s['about_releases_right']}/"
            f"{s['about_releases']}, note in packet {s['release_note_in_packet']}/"
            f"{s['about_releases']}"
        )
    print(f"RELEASE_NOTE_CAP = {chosen(scores)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
