"""A one-file edit re-indexes one collection's tantivy part; what search returns is the same as
after a full rebuild of the same files, and every scope's statistics are its own documents'."""

from __future__ import annotations

import random
import shutil
from collections.abc import Mapping
from pathlib import Path

import yaml

from retrieval.config import Config, load_config
from retrieval.index import BuildReport, Index, build_index, index_root, index_text
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from retrieval.tantivy_engine import build_part, compose
from retrieval.text import tokenize
from tests.retrieval.docs_tree import WordCounter

# collection -> (access, channels)
COLLECTIONS = {"pub": ("public", []), "team-a": ("private", ["CA"]), "team-b": ("private", ["CB"])}
CHANNELS = ("CPUB", "CA", "CB")
VOCABULARY = [
    "".join(random.Random(n).choices("bcdfghjklmnpqrstvwxz", k=6)) + "o" for n in range(120)
]


def _page(seed: int, sections: int = 6) -> str:
    rng = random.Random(seed)

    def words(count: int) -> str:
        return " ".join(rng.choices(VOCABULARY, k=count))

    body = "".join(f"## {words(2)}\n\n{words(30)}.\n\n" for _ in range(sections))
    return f"# Page {seed}\n\n{body}"


def _corpus(docs: Path) -> None:
    for number, name in enumerate(COLLECTIONS):
        for page in range(5):
            path = docs / name / f"page-{page}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(_page(100 * number + page), encoding="utf-8")


def _config(base: Path, docs: Path, state: str) -> Config:
    collections = [
        {"name": name, "path": str(docs / name), "access": access}
        | ({"channels": channels} if channels else {})
        for name, (access, channels) in COLLECTIONS.items()
    ]
    raw = {
        "state_dir": str(base / state),
        "teams": ["T1"],
        "collections": collections,
        "search": {"engine": "tantivy", "chunk_tokens": 60},
        "retrieval": {"dense": False},
    }
    path = base / f"{state}.yml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_config(path)


def _incremental(tmp_path: Path, extra: Mapping[str, str] | None = None) -> tuple[Path, Config]:
    """The corpus in `tmp_path/docs` (plus `extra` files by path) and its config, not built."""
    docs = tmp_path / "docs"
    _corpus(docs)
    for path, text in (extra or {}).items():
        (docs / path).write_text(text, encoding="utf-8")
    return docs, _config(tmp_path, docs, "incremental")


def _build(config: Config) -> BuildReport:
    return build_index(config, WordCounter())


def _scope(config: Config, channel: str) -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


QUERIES = [*VOCABULARY, *(f"{a} {b}" for a, b in zip(VOCABULARY, VOCABULARY[7:], strict=False))]


def _results(config: Config) -> list[list[tuple[str, str, int, float]]]:
    index = Index.load(config)
    return [
        [(h.chunk.collection, h.chunk.path, h.chunk.start_line, h.score) for h in hits]
        for channel in CHANNELS
        for hits in (index.search(query, _scope(config, channel), 8) for query in QUERIES)
    ]


def _edits(docs: Path, step: int) -> None:
    """Step 0: one public file edited. Step 1: a private file added, another deleted."""
    if step == 0:
        (docs / "pub" / "page-2.md").write_text(_page(7777) + "\n## New\n\nquokkaword here.\n")
    else:
        (docs / "team-a" / "page-9.md").write_text(_page(8888), encoding="utf-8")
        (docs / "team-a" / "page-1.md").unlink()


def test_an_edit_reindexes_one_part_and_ranks_as_a_full_rebuild(tmp_path: Path) -> None:
    docs, config = _incremental(tmp_path)
    first = _build(config)
    assert (first.engines_built, first.parts_built) == (3, 3)

    _edits(docs, 0)
    public_edit = _build(config)
    assert (public_edit.engines_built, public_edit.parts_built) == (3, 1)
    _edits(docs, 1)
    private_edit = _build(config)
    assert (private_edit.engines_built, private_edit.parts_built) == (1, 1)

    fresh = _config(tmp_path, docs, "fresh")
    assert _build(fresh).parts_built == 3
    assert Index.load(fresh).collections() == Index.load(config).collections()
    incremental, rebuilt = _results(config), _results(fresh)
    assert sum(map(len, rebuilt)) > len(QUERIES)  # the queries do find chunks
    assert incremental == rebuilt


def test_an_incremental_engine_counts_only_its_own_scope(tmp_path: Path) -> None:
    docs, config = _incremental(
        tmp_path, {"team-b/page-0.md": "# Secret\n\nzebrafishword policy.\n"}
    )
    _build(config)
    _edits(docs, 0)
    _build(config)
    _edits(docs, 1)
    _build(config)

    index = Index.load(config)
    terms = [*tokenize(" ".join(VOCABULARY[:40])), *tokenize("zebrafishword quokkaword")]
    for channel in CHANNELS:
        scope = _scope(config, channel)
        chunks = index.chunks(scope)
        held = [set(tokenize(index_text(chunk))) for chunk in chunks]
        expected = [sum(term in tokens for tokens in held) for term in terms]
        assert index.frequencies(terms, scope) == (len(chunks), expected)
        assert {chunk.collection for chunk in chunks} == set(scope.collections)
    assert index.frequencies(tokenize("zebrafishword"), _scope(config, "CA")) == (
        len(index.chunks(_scope(config, "CA"))),
        [0],
    )


def test_an_incremental_build_drops_a_deleted_file_from_results(tmp_path: Path) -> None:
    docs, config = _incremental(tmp_path, {"team-a/gone.md": "# Gone\n\nThe walrusword runbook.\n"})
    _build(config)
    scope = _scope(config, "CA")
    assert Index.load(config).search("walrusword", scope, 5)[0].chunk.path == "gone.md"

    (docs / "team-a" / "gone.md").unlink()
    report = _build(config)

    assert report.parts_built == 1
    index = Index.load(config)
    assert index.candidates("walrusword", scope, 5)[0] == []  # BM25: the word is gone
    assert all(hit.chunk.path != "gone.md" for hit in index.search("walrusword", scope, 5))
    assert all(chunk.path != "gone.md" for chunk in index.chunks(scope))


def test_a_part_removed_from_disk_is_indexed_again(tmp_path: Path) -> None:
    docs, config = _incremental(tmp_path)
    _build(config)
    parts = sorted((index_root(config) / "engines").glob("part-*"))
    assert len(parts) == 3
    for part in parts:
        shutil.rmtree(part)

    _edits(docs, 1)  # team-a changes: its sets (public + team-a) are composed again
    report = _build(config)

    assert (report.engines_built, report.parts_built) == (1, 2)  # team-a's and pub's
    fresh = _config(tmp_path, docs, "fresh")
    _build(fresh)
    assert _results(config) == _results(fresh)


def test_an_index_loaded_before_a_rebuild_keeps_answering_the_same(tmp_path: Path) -> None:
    # The new build links the parts' segment files and never writes into the old folders,
    # so an index a server still holds is left whole until it reloads.
    docs, config = _incremental(tmp_path)
    _build(config)
    old = Index.load(config)
    scope = _scope(config, "CB")
    before = [old.search(query, scope, 5) for query in QUERIES[:40]]

    _edits(docs, 0)
    _build(config)

    assert [old.search(query, scope, 5) for query in QUERIES[:40]] == before


def test_a_build_that_dies_while_composing_leaves_the_old_index_whole(tmp_path: Path) -> None:
    # What a build killed mid-way leaves: a new part and a set half composed from the old
    # parts' files (linked, so sharing their inodes). The old index must load and answer as
    # before, and the next build must clean up and rank as a fresh one.
    docs, config = _incremental(tmp_path)
    _build(config)
    before = _results(config)
    engines = index_root(config) / "engines"
    old_parts = sorted(engines.glob("part-*"))
    crashed_part = engines / "part-0123.tmp-999"
    crashed_part.mkdir()
    build_part(crashed_part, 7, ["quokkaword here", "and more words"])
    crashed_set = engines / "tantivy-4567.tmp-999"
    crashed_set.mkdir()
    compose(crashed_set, [*old_parts[:1], crashed_part])
    (crashed_set / "meta.json").write_text("{half written")

    assert _results(config) == before

    _edits(docs, 0)
    _build(config)
    assert not crashed_part.exists() and not crashed_set.exists()
    fresh = _config(tmp_path, docs, "fresh")
    _build(fresh)
    assert _results(config) == _results(fresh)
