"""Real user questions: the 54 Django FAQ questions asked of the FAQ pages without their headings.

Each FAQ entry is a section whose title is the question. The pages are copied into a temporary
folder with those title lines removed (so retrieval cannot match the question to its own
heading), indexed with `build_index`, and every question goes through the real pipeline
(`Index.load`, `AnswerPipeline`, `ExtractiveGenerator`, default `answer:` settings). Prints:
- retrieval: the question's source file first / in the top 5 chunks, and the same for the
  answer's own chunk (the one holding the first line of `answer_rst`);
- answered, and answered citing the source file;
- key text in a claim: some claim quotes the gold answer, i.e. at least 80% of the claim's
  content words (at least 5 of them) occur in `answer_rst`; and the mean share of the gold
  answer's first-sentence content words that the claims hold.

    python benchmarks/django_faq.py [--show] [--no-dense]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grounding.answer import Answer, AnswerStatus
from grounding.evidence import PackPolicy
from grounding.generators.extractive import ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from retrieval.text import SEARCH_STOPWORDS
from retrieval.tokens import TiktokenCounter

REPO = Path(__file__).resolve().parents[1]

FAQ = REPO / ".." / "shared" / "eval" / "django-faq"
QUOTE_SHARE = 0.8  # of a claim's content words found in the gold answer
QUOTE_MIN_WORDS = 5
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class FaqQuestion:
    question: str
    source: str
    adornment: str
    answer: str


@dataclass(frozen=True, slots=True)
class Outcome:
    rank: int  # 1-based place of the first chunk from the source file in the top 5; 0 if absent
    answer_rank: int  # the same for the chunk that holds the answer's first line
    answered: bool
    cites_source: bool
    quotes_gold: bool
    first_sentence_share: float


def load_questions(folder: Path = FAQ) -> tuple[FaqQuestion, ...]:
    rows = [
        json.loads(x) for x in (folder / "questions.jsonl").read_text("utf-8").splitlines() if x
    ]
    return tuple(
        FaqQuestion(r["question"], r["source_file"], r["level_adornment"], r["answer_rst"])
        for r in rows
    )


def strip_question_headings(source: Path, target: Path, questions: Sequence[FaqQuestion]) -> int:
    """Copy the FAQ pages into `target` without the question titles and their underlines."""
    removed = 0
    for page in sorted(source.glob("*.txt")):
        titles = {q.question for q in questions if q.source == page.name}
        lines = page.read_text(encoding="utf-8").split("\n")
        kept: list[str] = []
        i = 0
        while i < len(lines):
            underline = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if lines[i].strip() in titles and underline and len(set(underline)) == 1:
                removed += 1
                i += 2
                continue
            kept.append(lines[i])
            i += 1
        (target / page.name).write_text("\n".join(kept), encoding="utf-8")
    return removed


def content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.casefold()) if w not in SEARCH_STOPWORDS]


def first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    match = re.search(r"[.!?](?:\s|$)", flat)
    return flat[: match.end()] if match else flat


def quotes_gold(answer: Answer, gold: str) -> bool:
    """Some claim is (mostly) made of the gold answer's words: it quotes the answer."""
    vocabulary = set(content_words(gold))
    for claim in answer.claims:
        words = content_words(claim.text)
        quoted = sum(w in vocabulary for w in words)
        if len(words) >= QUOTE_MIN_WORDS and quoted / len(words) >= QUOTE_SHARE:
            return True
    return False


def first_sentence_share(answer: Answer, gold: str) -> float:
    wanted = set(content_words(first_sentence(gold)))
    held = {w for claim in answer.claims for w in content_words(claim.text)}
    return len(wanted & held) / len(wanted) if wanted else 0.0


def cites(answer: Answer, path: str) -> bool:
    by_number = {s.n: s.path for s in answer.sources}
    cited = {by_number.get(n) for claim in answer.claims for n in claim.citations}
    return answer.status is AnswerStatus.ANSWERED and path in cited


def write_config(docs: Path, folder: Path, dense: bool = True) -> Config:
    config_file = folder / "docbot.yml"
    config_file.write_text(
        f"state_dir: {json.dumps(str(folder / 'state'))}\nteams: [T0FAQ]\ncollections:\n"
        f"  - name: django-faq\n    path: {json.dumps(str(docs))}\n"
        '    include: ["*.txt"]\n'
        f"retrieval: {{dense: {json.dumps(dense)}}}\n",
        encoding="utf-8",
    )
    return load_config(config_file)


def make_pipeline(config: Config, index: Index) -> AnswerPipeline:
    answer = config.answer
    policy = PackPolicy.from_config(answer)
    generator = ExtractiveGenerator()
    return AnswerPipeline(
        index, generator, TiktokenCounter(), policy, url_resolver(config), k=answer.k
    )


async def ask_all(
    index: Index, pipeline: AnswerPipeline, scope: Scope, questions: Sequence[FaqQuestion]
) -> list[tuple[Outcome, Answer]]:
    results = []
    for q in questions:
        hits = index.search(q.question, scope, 5)
        paths = [hit.chunk.path for hit in hits]
        rank = paths.index(q.source) + 1 if q.source in paths else 0
        opening = q.answer.strip().split("\n")[0]
        holds = [h.chunk.path == q.source and opening in h.chunk.text for h in hits]
        answer_rank = holds.index(True) + 1 if True in holds else 0
        answer = await pipeline.answer(q.question, scope)
        outcome = Outcome(
            rank,
            answer_rank,
            answer.status is AnswerStatus.ANSWERED,
            cites(answer, q.source),
            quotes_gold(answer, q.answer),
            first_sentence_share(answer, q.answer),
        )
        results.append((outcome, answer))
    return results


def share(flags: Iterable[bool]) -> str:
    values = list(flags)
    return f"{sum(values) / len(values):.3f} ({sum(values)}/{len(values)})"


def report(outcomes: Sequence[Outcome], chunks: int) -> None:
    print(f"Django FAQ: {len(outcomes)} questions, {chunks} chunks (question headings removed)")
    rows = (
        ("source file ranked first", share(o.rank == 1 for o in outcomes)),
        ("source file in top 5", share(0 < o.rank <= 5 for o in outcomes)),
        ("answer's chunk ranked first", share(o.answer_rank == 1 for o in outcomes)),
        ("answer's chunk in top 5", share(0 < o.answer_rank <= 5 for o in outcomes)),
        ("answered", share(o.answered for o in outcomes)),
        ("answered citing the source file", share(o.cites_source for o in outcomes)),
        ("a claim quotes the gold answer", share(o.quotes_gold for o in outcomes)),
    )
    for label, value in rows:
        print(f"  {label:<34}{value}")
    mean = sum(o.first_sentence_share for o in outcomes) / len(outcomes)
    print(f"  {'gold 1st sentence words in claims':<34}{mean:.3f} (mean)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--show", action="store_true", help="print each question's outcome")
    parser.add_argument("--no-dense", action="store_true", help="BM25 alone (retrieval.dense off)")
    args = parser.parse_args(argv)
    if not (FAQ / "questions.jsonl").is_file():
        print(f"{FAQ} is absent: this benchmark needs ../shared beside the repository")
        return 1
    questions = load_questions()
    with tempfile.TemporaryDirectory(prefix="docbot-faq-") as tmp:
        docs = Path(tmp) / "faq"
        docs.mkdir()
        removed = strip_question_headings(FAQ, docs, questions)
        assert removed == len(questions), f"removed {removed} headings for {len(questions)}"
        config = write_config(docs, Path(tmp), dense=not args.no_dense)
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, "T0FAQ", "C0FAQ", ConversationKind.CHANNEL)
        results = asyncio.run(ask_all(index, make_pipeline(config, index), scope, questions))
        chunks = sum(n for _, n in index.collections().values())
    if args.show:
        for q, (o, answer) in zip(questions, results, strict=True):
            head = answer.claims[0].text[:70].replace("\n", " ") if answer.claims else "-"
            print(
                f"{o.rank}{o.answer_rank} {o.cites_source:d}{o.quotes_gold:d} {q.source:<18} "
                f"{q.question[:60]!r}"
            )
            print(f"      {head!r}")
    report([o for o, _ in results], chunks)
    return 0


if __name__ == "__main__":
    sys.exit(main())
