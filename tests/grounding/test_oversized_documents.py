"""A document with one huge block no longer hides the answer that a small file holds.

The real index, pipeline and extractive generator over a folder holding a generated 120-line
code block, 400-row table or ~147 KB paragraph (tests/retrieval/oversized_docs.py) next to a
58-byte file with the answer. The big block shares the question's words, so it used to rank
first as one chunk larger than the whole evidence budget; the packer then stopped and the
answer was not_found.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from grounding.answer import AnswerStatus
from grounding.evidence import PackPolicy
from grounding.generators.extractive import ExtractiveGenerator
from grounding.generators.segmentation import Markup, UnitKind, split_units
from grounding.pipeline import AnswerPipeline
from retrieval.chunking import chunk_document
from retrieval.config import load_config
from retrieval.index import Index, build_index
from retrieval.links import url_resolver
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.tokens import TiktokenCounter
from tests.retrieval import oversized_docs as docs

BIG: dict[str, tuple[str, Callable[[], str]]] = {
    "code block": ("settings.md", docs.markdown_code),
    "table": ("queues.md", docs.markdown_table),
    "paragraph": ("notes.md", docs.markdown_paragraph),
}


@pytest.mark.parametrize("kind", sorted(BIG))
def test_answer_is_found_next_to_a_document_with_one_huge_block(kind: str, tmp_path: Path) -> None:
    name, make = BIG[kind]
    folder = tmp_path / "docs"
    folder.mkdir()
    for path, text in {
        name: make(),
        docs.ANSWER_FILE[0]: docs.ANSWER_FILE[1],
        **docs.OTHER_FILES,
    }.items():
        (folder / path).write_text(text, encoding="utf-8")
    config_file = tmp_path / "docbot.yml"
    config_file.write_text(
        "state_dir: state\nteams: [T1]\ncollections:\n  - name: docs\n    path: docs\n",
        encoding="utf-8",
    )
    config = load_config(config_file)
    build_index(config)
    index = Index.load(config)
    scope = resolve_scope(config, "T1", "C1", ConversationKind.CHANNEL)
    counter = TiktokenCounter()
    pipeline = AnswerPipeline(
        index,
        ExtractiveGenerator(),
        counter,
        PackPolicy.from_config(config.answer),
        url_resolver(config),
        k=config.answer.k,
    )

    answer = asyncio.run(pipeline.answer(docs.QUESTION, scope))

    assert answer.status is AnswerStatus.ANSWERED, answer.message
    hits = index.search(docs.QUESTION, scope, config.answer.k)
    assert name in {hit.chunk.path for hit in hits}  # the big document competes for the packet
    assert all(counter.count(h.chunk.text) <= config.search.chunk_tokens for h in hits)
    cited = {s.n: s.path for s in answer.sources}
    assert any(
        "retry limit is 7" in claim.text and "webhooks.md" in {cited[n] for n in claim.citations}
        for claim in answer.claims
    ), answer.claims


@pytest.mark.parametrize(
    ("path", "make", "markup"),
    [
        ("settings.md", docs.markdown_code, Markup.MARKDOWN),
        ("settings.md", docs.markdown_indented_code, Markup.MARKDOWN),
        ("settings.rst", docs.rest_code, Markup.REST),
        ("settings.rst", docs.rest_literal, Markup.REST),
    ],
)
def test_every_piece_of_cut_code_is_read_as_code_by_the_answer_splitter(
    path: str, make: Callable[[], str], markup: Markup
) -> None:
    chunks = chunk_document("c", path, make(), "", TiktokenCounter(), 350)

    code = [c for c in chunks if "configure_payments" in c.text]
    assert len(code) > 3
    for chunk in code:
        units = [u for u in split_units(chunk.text, markup) if "configure_payments" in u.text]
        assert units and all(u.kind is UnitKind.CODE for u in units), chunk.text
