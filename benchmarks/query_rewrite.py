"""Query rewriting: retrieval recall with and without rewrites, on the dev questions' splits.

The rewrites are the queries a model would give (benchmarks/query_rewrites/rewrites.jsonl,
written for this benchmark: English, standalone, acronyms and setting names spelled out, no
answers). They are served by the fake OpenAI-compatible server and read back through the real
`openai` client and grounding.rewrite.ModelRewriter, then every condition searches with
grounding.retriever.search_all, as the pipeline does. Questions: the answerable ones of
benchmarks/questions/<corpus>.jsonl, and the thread follow-ups of query_rewrites/followups.jsonl
(each with its earlier questions). Splits by id hash (benchmarks/dev_questions.split_of): choose
the rule on train; test is for measuring.

Conditions:
- none: the question alone (a follow-up: its thread's earlier questions, then it, as today);
- always: the question and its rewrites, fused;
- rewrites only: the rewrites alone (is the question itself worth searching too?);
- rule: `always` where grounding.rewrite.needs_rewrite says so, else `none` (answer.rewrite: auto).

Many written rewrites name the identifier a right answer holds (`select_related` for "a query per
row in a loop"), as a model that knows the library would. `--mask-answers` takes those strings
out (unless the question holds them), for what rewriting does with no knowledge beyond the
question.

Prints recall@k (an expected file among the top k) and MRR@k per split, group (English
standalone, not English, follow-up) and condition.

    python -m benchmarks.query_rewrite [--split train|test|all] [--corpus NAME ...] [--k 12]
        [--state DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.corpora import corpora_absent
from benchmarks.dev_questions import (
    QUESTIONS,
    SETS,
    corpus_config,
    load_questions,
    split_of,
)
from grounding.deadline import Deadline, SystemClock
from grounding.generators.openai_gen import OpenAIModel, make_openai_client
from grounding.pipeline import CONTEXT_QUESTIONS, thread_query
from grounding.retriever import search_all
from grounding.rewrite import ModelRewriter, needs_rewrite, rewrite_input
from retrieval.chunks import Hit
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.grounding.fake_openai import FakeOpenAI, Recorded, Reply, loopback_http_client
from tests.grounding.rewrite_harness import queries

# Not in benchmarks/questions: those are question sets in docbot eval's line format; these hold
# threads and rewrites, which that format does not have.
REWRITES = QUESTIONS.parent / "query_rewrites"
CONDITIONS = ("none", "always", "rewrites only", "rule")
GROUPS = ("English standalone", "not English", "follow-up")
# A candidate trigger for `needs_rewrite` ("acronyms expanded"): an all-caps or digit-led
# abbreviation (PEP, GIL, 4xx, 503s). Printed as its own line of English standalone questions.
ACRONYM = re.compile(r"\b[A-Z]{2,6}[0-9]?s?\b|\b[a-z]*[0-9]+[a-z]+\b")


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    corpus: str
    question: str
    context: tuple[str, ...]
    expected: tuple[str, ...]
    strings: tuple[str, ...]  # what a right answer holds
    lang: str

    @property
    def split(self) -> str:
        return split_of(self.id)

    @property
    def group(self) -> str:
        if self.context:
            return "follow-up"
        return "English standalone" if self.lang == "en" else "not English"


def load_items(corpus: str) -> list[Item]:
    items = [
        Item(q.id, corpus, q.question, (), q.expected, q.strings, q.lang)
        for q in load_questions(corpus)
        if q.answerable
    ]
    for line in (REWRITES / "followups.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["corpus"] == corpus:
            items.append(
                Item(row["id"], corpus, row["question"], tuple(row["context"]),
                     tuple(row["expected"]), tuple(row["strings"]), row.get("lang", "en"))
            )  # fmt: skip
    return items


def masked(item: Item, rewrite: Sequence[str]) -> tuple[str, ...]:
    """`rewrite` without the answer's strings the question does not itself hold: what a model
    that knows nothing beyond the question would write (the lower bound of what rewriting does)."""
    asked = " ".join((item.question, *item.context)).casefold()
    hidden = [s for s in item.strings if s.casefold() not in asked]
    out = []
    for query in rewrite:
        for string in hidden:
            query = re.sub(re.escape(string), " ", query, flags=re.IGNORECASE)
        query = " ".join(query.split())
        if query:
            out.append(query)
    return tuple(out)


def load_rewrites(mask: Mapping[str, Item] | None = None) -> dict[str, tuple[str, ...]]:
    path = REWRITES / "rewrites.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    table = {row["id"]: tuple(row["queries"]) for row in rows}
    if mask is not None:
        table = {key: masked(mask[key], qs) if key in mask else qs for key, qs in table.items()}
    return table


def server_hook(items: Sequence[Item], table: Mapping[str, Sequence[str]]) -> Callable[
    [Recorded], Reply | None
]:  # fmt: skip
    """The fake model: the rewrite written for the question the request carries."""
    by_input = {
        rewrite_input(i.question, list(i.context[-CONTEXT_QUESTIONS:])): table.get(i.id, ())
        for i in items
    }

    def respond(recorded: Recorded) -> Reply:
        turn = [m["content"] for m in recorded.body["messages"] if m["role"] == "user"][-1]
        return queries(*by_input.get(turn, ()))

    return respond


def first_expected(hits: Sequence[Hit], expected: Sequence[str]) -> int | None:
    for rank, hit in enumerate(hits, 1):
        if hit.chunk.path in expected:
            return rank
    return None


async def rewrites_for(items: Sequence[Item], table: Mapping[str, Sequence[str]]) -> tuple[
    list[tuple[str, ...]], list[float]
]:  # fmt: skip
    """Every item's rewrite through the real client, and each call's time in ms (loopback)."""
    async with FakeOpenAI(respond=server_hook(items, table)) as fake:
        client = make_openai_client("sk-bench", fake.base_url, http_client=loopback_http_client())
        model = OpenAIModel(client, "gpt-bench", api="chat", reasoning_effort=None)
        rewriter = ModelRewriter(model, mode="always")
        out, times = [], []
        try:
            for item in items:
                started = time.perf_counter()
                deadline = Deadline.start(30.0, SystemClock())
                rewrite = await rewriter.rewrite(item.question, item.context, deadline)
                times.append((time.perf_counter() - started) * 1000)
                out.append(rewrite.queries)
        finally:
            await client.close()
    return out, times


def searches(item: Item, rewrites: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    base = thread_query(item.question, item.context)
    rule = needs_rewrite(item.question, item.context)
    return {
        "none": (base,),
        "always": (base, *rewrites),
        "rewrites only": rewrites or (base,),
        "rule": (base, *rewrites) if rule else (base,),
    }


def _in_group(item: Item, group: str) -> bool:
    if group == "  with an acronym":
        return item.group == "English standalone" and ACRONYM.search(item.question) is not None
    return group in ("all", item.group)


def report(label: str, rows: Sequence[tuple[Item, dict[str, int | None]]], k: int) -> None:
    print(f"{label}: recall@3 / recall@{k} / MRR@{k}")
    for group in (*GROUPS, "  with an acronym", "all"):
        chosen = [ranks for item, ranks in rows if _in_group(item, group)]
        if not chosen:
            continue
        cells = []
        for condition in CONDITIONS:
            found = [r[condition] for r in chosen]
            top3 = sum(f is not None and f <= 3 for f in found) / len(found)
            recall = sum(f is not None for f in found) / len(found)
            mrr = sum(1.0 / f for f in found if f is not None) / len(found)
            cells.append(f"{condition} {top3:.2f}/{recall:.2f}/{mrr:.2f}")
        print(f"  {group:<18} n={len(chosen):<3} " + " | ".join(cells))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test", "all"), default="train")
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=sorted(SETS))
    parser.add_argument("--k", type=int, default=12, help="hits considered (answer.k)")
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-query-rewrite"))
    parser.add_argument(
        "--mask-answers",
        action="store_true",
        help="take out of each rewrite the answer strings its question does not hold",
    )
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    everything: list[tuple[Item, dict[str, int | None]]] = []
    call_ms: list[float] = []
    for corpus in args.corpus:
        items = [i for i in load_items(corpus) if args.split in ("all", i.split)]
        table = load_rewrites({i.id: i for i in items} if args.mask_answers else None)
        missing = [i.id for i in items if i.id not in table]
        if missing:
            print(f"{corpus}: no rewrite written for {missing}", file=sys.stderr)
        config = corpus_config(corpus, args.state / corpus)
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
        rewrites, times = asyncio.run(rewrites_for(items, table))
        call_ms += times
        rows = []
        for item, rewrite in zip(items, rewrites, strict=True):
            ranks = {
                condition: first_expected(search_all(index, qs, scope, args.k), item.expected)
                for condition, qs in searches(item, rewrite).items()
            }
            rows.append((item, ranks))
        report(f"{corpus} ({args.split})", rows, args.k)
        everything += rows
    if len(args.corpus) > 1:
        report(f"all corpora ({args.split})", everything, args.k)
    if call_ms:
        p50, p95 = np.percentile(call_ms, [50, 95])
        print(f"rewrite call through the client, loopback fake: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
