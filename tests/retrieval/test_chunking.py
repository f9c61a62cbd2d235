"""Chunks follow headings, never split code or tables, and cite exact lines of the file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from retrieval.blocks import Block, Heading
from retrieval.chunking import chunk_document, parse_document
from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.config import CollectionConfig
from retrieval.files import SourceText, find_files, read_source
from retrieval.tokens import TiktokenCounter, TokenCounter
from tests.retrieval.exact_lines import assert_exact_lines
from tests.retrieval.ingest_fakes import WordCounter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
# How each fixture is encoded, so its lines can be read independently of the reader under test.
FIXTURE_CODECS = {
    "guide.md": "utf-8",
    "reference.rst": "utf-8",
    "notes.txt": "utf-8",
    "manual.txt": "utf-8",
    "crlf.md": "utf-8",
    "classic-mac.txt": "utf-8",
    "bom.md": "utf-8-sig",
    "utf16.md": "utf-16",
    "latin1.txt": "latin-1",
    "cp1252.txt": "cp1252",
}


def _chunks(
    name: str,
    budget: int = 350,
    counter: TokenCounter | None = None,
    min_tokens: int | None = None,
) -> list[Chunk]:
    """The fixture's chunks; `min_tokens=0` turns off merging, to see each section alone."""
    source = read_source(CollectionConfig(name="fx", path=FIXTURES), name, 1_000_000)
    assert isinstance(source, SourceText), source
    counter = counter or WordCounter()
    return list(chunk_document("fx", name, source.text, "2026-01-02", counter, budget, min_tokens))


def _file_lines(path: Path, codec: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", path.read_bytes().decode(codec))


def _assert_not_only_headings(chunks: Sequence[Chunk], items: Sequence[object]) -> None:
    heading_lines = {
        n for item in items if isinstance(item, Heading) for n in range(item.start, item.end + 1)
    }
    for chunk in chunks:
        body = range(chunk.start_line - 1, chunk.end_line)
        assert any(n not in heading_lines for n in body), f"heading-only chunk {chunk}"


def _spans(chunks: Sequence[Chunk]) -> list[tuple[int, int, tuple[str, ...]]]:
    return [(c.start_line, c.end_line, c.heading_path) for c in chunks]


@pytest.mark.parametrize("budget", [10, 40, 350])
@pytest.mark.parametrize("name", sorted(FIXTURE_CODECS))
def test_chunk_document_fixture_chunks_are_exact_file_lines(name: str, budget: int) -> None:
    chunks = _chunks(name, budget)

    assert chunks
    assert_exact_lines(chunks, _file_lines(FIXTURES / name, FIXTURE_CODECS[name]))
    lines = "\n".join(_file_lines(FIXTURES / name, FIXTURE_CODECS[name])).split("\n")
    _assert_not_only_headings(chunks, parse_document(name, lines))


def test_chunk_document_markdown_follows_atx_and_setext_headings() -> None:
    assert _spans(_chunks("guide.md", min_tokens=0)) == [
        (6, 9, ("Payments guide",)),
        (11, 14, ("Payments guide", "Keys")),
        (16, 25, ("Payments guide", "Keys", "Rotating the key")),
        (27, 29, ("Payments guide", "Keys", "Revoking a key")),
        (31, 55, ("Payments guide", "Deploys")),
        (57, 71, ("Payments guide", "Regions")),
        # "## Empty section" has no content: it rides along with the next section.
        (73, 82, ("Payments guide", "Rollback")),
    ]


def test_chunk_document_skips_yaml_front_matter() -> None:
    assert not any("payments-team" in chunk.text for chunk in _chunks("guide.md", 10))


def test_chunk_document_rest_follows_over_and_underline_headings() -> None:
    assert _spans(_chunks("reference.rst", min_tokens=0)) == [
        # The label above the title belongs to the title.
        (1, 7, ("Payments reference",)),
        (9, 20, ("Payments reference", "Configuration")),
        (22, 32, ("Payments reference", "Configuration", "Retries")),
        (34, 51, ("Payments reference", "Configuration", "Retries", "Limits")),
        (53, 70, ("Payments reference", "Errors")),
    ]


def test_chunk_document_rest_levels_follow_first_appearance() -> None:
    text = "Title\n-----\n\nintro\n\nSub\n===\n\nbody\n\nOther\n-----\n\nmore\n"

    chunks = chunk_document("c", "doc.rst", text, "", WordCounter(), 350, min_tokens=0)

    assert [c.heading_path for c in chunks] == [("Title",), ("Title", "Sub"), ("Other",)]


def test_chunk_document_txt_that_looks_like_rest_is_parsed_as_rest() -> None:
    assert _spans(_chunks("manual.txt", min_tokens=0)) == [
        (1, 4, ("Operator manual",)),
        (6, 11, ("Operator manual", "Shutdown")),
    ]


def test_chunk_document_plain_text_splits_at_paragraphs() -> None:
    assert _spans(_chunks("notes.txt", 20)) == [(1, 1, ()), (3, 4, ()), (6, 6, ())]
    # A paragraph over the budget is cut between its lines, where a sentence ends.
    assert _spans(_chunks("notes.txt", 12)) == [(1, 1, ()), (3, 3, ()), (4, 4, ()), (6, 6, ())]


@pytest.mark.parametrize("budget", [10, 30, 60, 350])
@pytest.mark.parametrize("name", ["guide.md", "reference.rst"])
def test_chunk_document_keeps_a_block_whole_while_it_fits(name: str, budget: int) -> None:
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    chunks = _chunks(name, budget)

    for item in parse_document(name, lines):
        text = "\n".join(lines[item.start : item.end + 1])
        if isinstance(item, Block) and WordCounter().count(text) <= budget // 2:
            assert any(text in c.text for c in chunks), text


def test_chunk_document_cuts_fences_and_tables_into_well_formed_pieces() -> None:
    texts = [c.text for c in _chunks("guide.md", 30)]

    python = [t for t in texts if "```python" in t]
    assert len(python) > 1
    assert all(t.count("```") % 2 == 0 for t in texts)
    unfreeze = next(t for t in texts if "client.unfreeze()" in t)
    assert unfreeze.startswith("```python") and unfreeze.endswith("```")
    rows = [t for t in texts if "-1 | payments." in t]
    assert len(rows) > 1
    assert all("| Region | Endpoint | Primary | Notes |\n|--------|" in t for t in rows)
    nested = next(t for t in texts if "```shell" in t)
    assert "./rotate-key" in nested and nested.rstrip().endswith("```")


def test_chunk_document_cut_rest_literals_directives_and_tables_keep_their_heads() -> None:
    texts = [c.text for c in _chunks("reference.rst", 30)]

    def holding(fragment: str) -> str:
        return next(t for t in texts if fragment in t)

    assert "attempts = 3" in holding(".. code-block:: toml")
    assert "delay = cap" in holding("retried with backoff::")
    assert holding("| per_second | 50").startswith("+----")
    assert "| Limit " in holding("| per_second | 50")
    assert "JPY        0" in holding("Currency   Decimals")


def test_chunk_document_splits_long_sections_at_paragraphs_under_the_budget() -> None:
    counter = TiktokenCounter()
    budget = 30
    chunks = _chunks("guide.md", budget, counter)
    lines = (FIXTURES / "guide.md").read_text(encoding="utf-8").split("\n")
    items = parse_document("guide.md", lines)

    for chunk in chunks:
        if counter.count(chunk.text) > budget:
            inside = [
                item
                for item in items
                if isinstance(item, Block)
                and chunk.start_line - 1 <= item.start
                and item.end <= chunk.end_line - 1
            ]
            assert len(inside) <= 1, f"over budget with several blocks: {chunk.text!r}"
    assert len(chunks) > len(_chunks("guide.md", 350, counter))


def test_chunk_document_splits_a_long_list_between_items() -> None:
    text = "# Checks\n\n" + "".join(f"- check {n} verifies one more thing\n" for n in range(12))

    chunks = chunk_document("c", "list.md", text, "", WordCounter(), 20)

    assert len(chunks) > 1
    assert chunks[0].text.startswith("# Checks\n\n- check 0")
    assert all(c.text.startswith(("# Checks", "- check")) for c in chunks)
    assert chunks[-1].text.endswith("- check 11 verifies one more thing")


def test_chunk_document_splits_a_long_directive_between_its_paragraphs() -> None:
    chunks = _chunks("reference.rst", 12)
    texts = [c.text for c in chunks]

    head = next(t for t in texts if t.startswith(".. function:: transfer"))
    assert "Move ``amount``" in head
    assert any(t.lstrip().startswith("Raises ``LimitExceeded``") for t in texts)


def test_chunk_document_drops_a_trailing_heading_without_content() -> None:
    text = "# Guide\n\nSome text.\n\n## Later\n"

    chunks = chunk_document("c", "doc.md", text, "", WordCounter(), 350)

    assert _spans(chunks) == [(1, 3, ("Guide",))]


def test_chunk_document_ids_survive_edits_to_an_unrelated_paragraph_above() -> None:
    before = "# Guide\n\nIntro text.\n\n## Keys\n\nRotate keys every 90 days.\n"
    after = "# Guide\n\nIntro text,\nnow longer.\n\n## Keys\n\nRotate keys every 90 days.\n"

    old = chunk_document("c", "g.md", before, "", WordCounter(), 8)
    new = chunk_document("c", "g.md", after, "", WordCounter(), 8)

    assert old[-1].chunk_id == new[-1].chunk_id
    assert (old[-1].start_line, new[-1].start_line) == (5, 6)
    assert old[0].chunk_id != new[0].chunk_id


def test_chunk_document_fills_digest_id_and_date() -> None:
    chunk = _chunks("notes.txt")[0]

    assert chunk.digest == text_digest(chunk.text)
    assert chunk.chunk_id == make_chunk_id("fx", "notes.txt", chunk.digest, 0)
    assert (chunk.collection, chunk.path, chunk.updated) == ("fx", "notes.txt", "2026-01-02")


def test_chunk_document_identical_texts_get_distinct_ids() -> None:
    text = "# A\n\nSame words.\n\n# A\n\nSame words.\n\n# A\n\nSame words.\n"

    chunks = chunk_document("c", "twice.md", text, "", WordCounter(), 350, min_tokens=0)

    assert len({c.digest for c in chunks}) == 1
    assert len({c.chunk_id for c in chunks}) == 3


def test_chunk_document_crlf_bom_and_latin1_files_keep_their_line_numbers() -> None:
    assert _spans(_chunks("crlf.md", min_tokens=0)) == [
        (1, 4, ("Windows notes",)),
        (6, 8, ("Windows notes", "Next")),
    ]
    assert _spans(_chunks("bom.md")) == [(1, 3, ("BOM title",))]
    assert [c.text for c in _chunks("latin1.txt", 3)] == ["Café crème brûlée.", "Naïve résumé."]


def _shared_corpus(name: str) -> Path:
    corpus = SHARED / "corpora" / name
    if not corpus.is_dir():
        pytest.skip(f"../shared is absent: {corpus} not found")
    return corpus


def _check_corpus(corpus: Path, paths: Sequence[str], budget: int) -> int:
    collection = CollectionConfig(name="corpus", path=corpus)
    counter = TiktokenCounter()
    total = 0
    for path in paths:
        source = read_source(collection, path, 5_000_000)
        assert isinstance(source, SourceText), source
        chunks = chunk_document("corpus", path, source.text, "", counter, budget)
        assert_exact_lines(chunks, _file_lines(corpus / path, "utf-8-sig"))
        assert all(counter.count(c.text) <= budget for c in chunks), path
        total += len(chunks)
    return total


def test_chunk_document_httpx_docs_chunks_are_exact_file_lines() -> None:
    corpus = _shared_corpus("httpx-docs")
    paths = find_files(CollectionConfig(name="corpus", path=corpus)).paths

    assert len(paths) >= 20
    assert _check_corpus(corpus, paths, 350) > len(paths)
    assert _check_corpus(corpus, paths, 60) > len(paths)


def test_chunk_document_django_docs_sample_chunks_are_exact_file_lines() -> None:
    corpus = _shared_corpus("django-docs")
    paths = find_files(CollectionConfig(name="corpus", path=corpus)).paths
    sample = paths[:: max(1, len(paths) // 60)]

    assert _check_corpus(corpus, sample, 350) > len(sample)


def test_chunk_document_list_item_over_dashes_is_not_a_setext_heading() -> None:
    text = "# Steps\n\n- first step\n---\n\nAfter the rule.\n"

    chunks = chunk_document("c", "steps.md", text, "", WordCounter(), 350)

    assert _spans(chunks) == [(1, 6, ("Steps",))]


def test_chunk_document_skips_toml_front_matter() -> None:
    text = '+++\ntitle = "Guide"\n+++\n\n# Guide\n\nBody.\n'

    chunks = chunk_document("c", "hugo.md", text, "", WordCounter(), 350)

    assert _spans(chunks) == [(5, 7, ("Guide",))]


REPO = Path(__file__).resolve().parents[2]


def test_chunk_document_merges_short_sections_into_their_parent() -> None:
    # The demo runbook: four sections of 30-120 tokens used to be four chunks, so the per-file
    # limit of the evidence packet left out "Steps".
    path = REPO / "examples" / "runbooks" / "rotate-signing-secret.md"
    text = path.read_text(encoding="utf-8")

    chunks = chunk_document("ops", path.name, text, "", TiktokenCounter(), 350)

    assert _spans(chunks) == [
        (1, len(text.rstrip("\n").split("\n")), ("Rotating the Slack signing secret",))
    ]
    assert "## Steps" in chunks[0].text and "## Rolling back" in chunks[0].text


def test_chunk_document_merged_chunks_stay_under_the_budget() -> None:
    sections = "".join(f"## Part {n}\n\n" + "word " * (3 + n % 5) + "\n\n" for n in range(30))
    text = "# Guide\n\nIntro.\n\n" + sections
    lines = text.split("\n")

    chunks = chunk_document("c", "parts.md", text, "", WordCounter(), 40)

    assert 1 < len(chunks) < 30
    assert all(WordCounter().count(c.text) <= 40 for c in chunks)
    # A chunk holding several parts is cited by the section that holds them all.
    assert all(c.heading_path == ("Guide",) for c in chunks if c.text.count("## Part") > 1)
    assert_exact_lines(chunks, lines)
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(f"Part {n}" in "\n".join(lines[i - 1] for i in covered) for n in range(30))


def test_chunk_document_short_subsection_joins_its_section_not_the_next_one() -> None:
    long = "word " * 30
    text = f"# T\n\n{long}\n\n## A\n\n{long}\n\n### a1\n\nshort text\n\n## B\n\n{long}\n"

    chunks = chunk_document("c", "doc.md", text, "", WordCounter(), 40)

    assert _spans(chunks) == [(1, 3, ("T",)), (5, 11, ("T", "A")), (13, 15, ("T", "B"))]


def test_chunk_document_short_section_takes_its_following_siblings_and_children() -> None:
    text = "# T\n\n## A\n\nshort a\n\n### a1\n\nshort a1\n\n## B\n\nshort b\n\n# U\n\nshort u\n"

    chunks = chunk_document("c", "doc.md", text, "", WordCounter(), 350)

    # "# U" is a sibling of "# T", not of "## A": the group that starts at A stays under T.
    assert _spans(chunks) == [(1, 13, ("T",)), (15, 17, ("U",))]


def test_chunk_document_split_section_keeps_its_pieces_apart_from_neighbours() -> None:
    paragraph = "word " * 15
    text = f"# T\n\n## A\n\n{paragraph}\n\n{paragraph}\n\n{paragraph}\n\ntail\n\n## B\n\nshort b\n"

    chunks = chunk_document("c", "doc.md", text, "", WordCounter(), 40)

    # A is too long for one chunk: its short last piece is A's continuation, and B stays B.
    assert [c.heading_path for c in chunks] == [("T", "A"), ("T", "A"), ("T", "B")]
    assert chunks[-1].text.startswith("## B")


def test_chunk_document_merging_never_splits_code_and_keeps_headings_in_text() -> None:
    chunks = _chunks("guide.md", 350)

    assert _spans(chunks) == [(6, 55, ("Payments guide",)), (57, 82, ("Payments guide",))]
    assert "### Rotating the key" in chunks[0].text and "## Deploys #" in chunks[0].text
    assert "```python" in chunks[0].text and "client.verify(version)" in chunks[0].text


def test_chunk_document_min_tokens_zero_keeps_every_section_alone() -> None:
    text = "# T\n\nshort\n\n## A\n\nshort a\n"

    merged = chunk_document("c", "doc.md", text, "", WordCounter(), 350)
    alone = chunk_document("c", "doc.md", text, "", WordCounter(), 350, min_tokens=0)

    assert _spans(merged) == [(1, 7, ("T",))]
    assert _spans(alone) == [(1, 3, ("T",)), (5, 7, ("T", "A"))]
