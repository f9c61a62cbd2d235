"""A block over the chunk budget is cut into pieces that each fit, at exact lines, well-formed.

The documents are generated (tests/retrieval/oversized_docs.py) at the sizes the issue found:
a 120-line code block, a 400-row table and a ~147 KB paragraph.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence

import pytest

from retrieval.chunking import chunk_document
from retrieval.chunks import Chunk
from retrieval.tokens import TiktokenCounter
from tests.retrieval import oversized_docs as docs
from tests.retrieval.exact_lines import assert_exact_lines
from tests.retrieval.ingest_fakes import WordCounter

BUDGET = 350  # the default chunk_tokens
COUNTER = TiktokenCounter()


# Chunks are frozen: a document cut once serves every test that reads its pieces (the cut of a
# ~147 KB paragraph is ~0.15 s). The determinism test cuts again with chunk_document itself.
@functools.cache
def _chunks(path: str, text: str, budget: int = BUDGET) -> tuple[Chunk, ...]:
    chunks = chunk_document("c", path, text, "", COUNTER, budget)
    assert len(chunks) > 1
    assert max(COUNTER.count(c.text) for c in chunks) <= budget
    assert_exact_lines(chunks, text.split("\n"))
    return chunks


def _holding(chunks: Sequence[Chunk], line: str) -> list[Chunk]:
    return [c for c in chunks if line in c.text.split("\n")]


DOCUMENTS: dict[str, tuple[str, Callable[[], str]]] = {
    "markdown code": ("settings.md", docs.markdown_code),
    "rest code-block": ("settings.rst", docs.rest_code),
    "rest literal": ("settings.rst", docs.rest_literal),
    "markdown table": ("queues.md", docs.markdown_table),
    "rest simple table": ("queues.rst", docs.rest_simple_table),
    "rest grid table": ("queues.rst", docs.rest_grid_table),
    "markdown paragraph": ("notes.md", docs.markdown_paragraph),
    "rest paragraph": ("notes.rst", docs.rest_paragraph),
    "text paragraph": ("notes.txt", docs.sentences),
    "wrapped text": ("notes.txt", docs.wrapped_paragraph),
}


@pytest.mark.parametrize("kind", sorted(DOCUMENTS))
def test_split_every_chunk_fits_the_budget_at_exact_lines(kind: str) -> None:
    path, make = DOCUMENTS[kind]
    text = make()
    assert COUNTER.count(text) > 6 * BUDGET  # the block alone is far over the budget

    chunks = _chunks(path, text)

    again = chunk_document("c", path, text, "", COUNTER, BUDGET)
    assert [c.chunk_id for c in again] == [c.chunk_id for c in chunks]


def test_split_markdown_code_block_pieces_are_fenced_and_hold_each_line_once() -> None:
    text = docs.markdown_code()
    chunks = _chunks("settings.md", text)

    code = [c for c in chunks if "configure_payments_webhook" in c.text]
    assert len(code) >= 6
    for chunk in code:
        fences = [line for line in chunk.text.split("\n") if line.startswith("```")]
        assert fences == ["```python", "```"], chunk.text
    for line in docs.code_lines():
        if line:
            assert len(_holding(chunks, line.removeprefix("    "))) == 1, line


def test_split_rest_code_pieces_repeat_the_directive_and_stay_indented() -> None:
    chunks = _chunks("settings.rst", docs.rest_code())

    code = [c for c in chunks if "configure_payments_webhook" in c.text]
    for chunk in code[1:]:
        assert chunk.text.startswith(".. code-block:: python\n   :caption: settings\n\n    "), (
            chunk.text
        )
    for line in docs.code_lines():
        if line:
            assert len(_holding(chunks, line)) == 1, line


def test_split_rest_literal_pieces_repeat_the_line_that_opens_them() -> None:
    chunks = _chunks("settings.rst", docs.rest_literal())

    assert all(c.text.startswith("The settings are::\n\n    ") for c in chunks[1:])


def test_split_markdown_table_pieces_repeat_the_header_and_split_between_rows() -> None:
    text = docs.markdown_table()
    chunks = _chunks("queues.md", text)

    for chunk in chunks:
        body = chunk.text.split("\n")
        at = body.index("| name | retry | queue |")
        assert body[at + 1] == "|---|---|---|"
        assert all(line.startswith("| payments-webhook-") for line in body[at + 2 :])
    for row in docs.table_rows():
        assert len(_holding(chunks, row)) == 1, row


def test_split_rest_simple_table_pieces_keep_header_and_bottom_border() -> None:
    chunks = _chunks("queues.rst", docs.rest_simple_table())

    border = "=================== =============== ========================"
    for chunk in chunks:
        body = chunk.text.split("\n")
        at = body.index(border)
        assert body[at + 1].startswith("name ") and body[at + 2] == border
        assert body[-1] == border


def test_split_rest_grid_table_pieces_keep_header_and_end_on_a_border() -> None:
    chunks = _chunks("queues.rst", docs.rest_grid_table())

    for chunk in chunks:
        body = chunk.text.split("\n")
        at = next(n for n, line in enumerate(body) if line.startswith("+---"))
        assert body[at + 1].startswith("| name ") and body[at + 2].startswith("+===")
        assert body[-1].startswith("+---") and body[-1].endswith("+")


@pytest.mark.parametrize("kind", ["markdown paragraph", "rest paragraph", "text paragraph"])
def test_split_one_huge_line_is_cut_between_sentences_within_that_line(kind: str) -> None:
    path, make = DOCUMENTS[kind]
    text = make()
    line = text.split("\n").index(docs.sentences()) + 1
    chunks = _chunks(path, text)

    assert all(c.end_line == line for c in chunks)
    assert all(c.start_line == line for c in chunks[1:])
    assert all(c.text.endswith(".") for c in chunks)
    assert all(c.text.startswith("The ") for c in chunks[1:])
    own = [chunks[0].text.split("\n")[-1], *(c.text for c in chunks[1:])]
    assert " ".join(own) == docs.sentences()  # nothing lost, nothing repeated


def test_split_wrapped_paragraph_is_cut_at_sentence_ends() -> None:
    text = docs.wrapped_paragraph()
    chunks = _chunks("notes.txt", text)

    assert all(c.text.split()[0] == "The" and c.text.endswith(".") for c in chunks)
    assert " ".join(" ".join(c.text.split()) for c in chunks) == docs.sentences()


def test_split_a_word_longer_than_the_budget_is_cut_between_characters() -> None:
    blob = "".join(f"{n:x}" for n in range(4000))  # ~15 KB without a space
    text = f"# Key\n\nThe key is {blob} and nothing else.\n"

    chunks = _chunks("key.md", text)

    assert all(c.start_line == c.end_line == 3 for c in chunks[1:])
    assert "".join(c.text.split("\n")[-1] for c in chunks).replace(" ", "") == (
        f"Thekeyis{blob}andnothingelse."
    )


def test_split_piece_ids_survive_an_edit_above_the_block() -> None:
    intro = "# Intro\n\n" + "Words about the queues in general. " * 30 + "\n\n"
    text = intro + docs.markdown_table()
    edited = text.replace("in general. ", "in general,\nover more lines. ", 1)

    old = chunk_document("c", "queues.md", text, "", COUNTER, BUDGET)
    new = chunk_document("c", "queues.md", edited, "", COUNTER, BUDGET)

    assert old[0].chunk_id != new[0].chunk_id
    assert [c.chunk_id for c in old[1:]] == [c.chunk_id for c in new[1:]]
    assert [c.start_line + 1 for c in old[1:]] == [c.start_line for c in new[1:]]


def test_split_heading_rides_with_the_first_piece() -> None:
    chunks = _chunks("queues.md", docs.markdown_table())

    assert chunks[0].text.startswith("# Webhook queues\n\n| name |")
    assert all(c.heading_path == ("Webhook queues",) for c in chunks)


def test_split_a_block_under_a_long_heading_still_fits() -> None:
    # A block that fits alone but not with its heading: the heading used to push it over.
    heading = "# " + " ".join(f"word{n}" for n in range(20))
    text = heading + "\n\n" + "\n".join(f"line {n} of the block" for n in range(8)) + "\n"

    chunks = chunk_document("c", "doc.md", text, "", WordCounter(), 40)

    assert max(WordCounter().count(c.text) for c in chunks) <= 40
    assert chunks[0].text.startswith(heading)
    assert_exact_lines(chunks, text.split("\n"))


def test_split_pieces_of_a_section_never_merge_with_the_next_section() -> None:
    text = docs.markdown_table() + "\n## Short\n\nA short section.\n"

    chunks = _chunks("queues.md", text)

    assert chunks[-1].text == "## Short\n\nA short section."
    assert not any(re.search(r"A short section", c.text) for c in chunks[:-1])


def test_split_list_table_pieces_repeat_the_directive_and_header_row() -> None:
    chunks = _chunks("queues.rst", docs.rest_list_table())

    head = ".. list-table:: Queues\n   :header-rows: 1\n\n   * - name\n     - retry\n     - queue\n"
    assert all(head in c.text for c in chunks)
    for chunk in chunks:
        rows = chunk.text.split(head, 1)[1].split("\n")
        assert rows[0].startswith("   * - payments-webhook-"), chunk.text  # a whole row
        assert len(rows) % 3 == 0


def test_split_csv_table_pieces_repeat_the_directive_and_its_header() -> None:
    chunks = _chunks("queues.rst", docs.rest_csv_table())

    head = '.. csv-table:: Queues\n   :header: "name", "retry", "queue"\n\n   payments-webhook-'
    assert all(head in c.text for c in chunks)


def test_split_indented_markdown_code_stays_indented_code() -> None:
    chunks = _chunks("settings.md", docs.markdown_indented_code())

    for chunk in chunks[1:]:
        assert all(line.startswith("    ") for line in chunk.text.split("\n") if line), chunk.text
