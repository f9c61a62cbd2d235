from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from grounding.retriever import Retriever
from retrieval.config import Config, load_config
from retrieval.errors import ConfigError, DocbotError, IndexNotBuiltError
from retrieval.index import (
    BuildReport,
    CollectionReport,
    Index,
    build_index,
    collection_sets,
    index_root,
    index_text,
)
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret, write_config, write_tree
from tests.retrieval.test_files import broken_checkout, too_deep_to_list


def _scope(config: Config, channel: str = "CPUB") -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


def _build(config: Config) -> BuildReport:
    return build_index(config, WordCounter())


def _report(report: BuildReport, name: str) -> CollectionReport:
    return next(c for c in report.collections if c.name == name)


def test_index_conforms_to_the_retriever_protocol(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    retriever: Retriever = Index.load(config)
    assert retriever.generation


def test_index_load_without_a_build_says_to_run_index(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    with pytest.raises(IndexNotBuiltError) as info:
        Index.load(config)
    assert "run `docbot index` first (with the same --config as this command)" in str(info.value)


def test_index_errors_never_show_a_placeholder_config_name(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(public_and_secret(tmp_path, with_secret=False))
    changed = config.model_copy(
        update={"search": config.search.model_copy(update={"chunk_tokens": 500})}
    )
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook", "nowhere"))
    messages = []
    for attempt in (
        lambda: Index.load(config),
        lambda: Index.load(changed),
        lambda: Index.load(public_and_secret(tmp_path, with_secret=False)).search("x", scope, 3),
    ):
        with pytest.raises(IndexNotBuiltError) as info:
            attempt()
        messages.append(str(info.value))
    for message in messages:
        assert "run `docbot index`" in message and "--config F" not in message, message


def test_index_load_refuses_an_index_missing_a_configured_collection(tmp_path: Path) -> None:
    _build(public_and_secret(tmp_path, with_secret=False))
    with pytest.raises(IndexNotBuiltError, match=r"'payments' is configured but not in the index"):
        Index.load(public_and_secret(tmp_path))


def test_index_load_refuses_an_incompatible_format(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    manifest = index_root(config) / "manifest.json"
    manifest.write_text(json.dumps({"format": 0}), encoding="utf-8")
    with pytest.raises(IndexNotBuiltError, match="incompatible docbot version"):
        Index.load(config)


def test_index_load_refuses_changed_chunking_settings(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    changed = config.model_copy(
        update={"search": config.search.model_copy(update={"chunk_tokens": 500})}
    )
    with pytest.raises(IndexNotBuiltError, match="chunking settings changed"):
        Index.load(changed)


def test_index_search_returns_ranked_hits_with_line_ranges(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    hits = Index.load(config).search("how do I roll back to the previous build", _scope(config), 3)
    assert [hit.rank for hit in hits] == list(range(1, len(hits) + 1))
    top = hits[0].chunk
    assert (top.collection, top.path, top.heading_path) == (
        "handbook",
        "deploy.md",
        ("Deploy", "Rollback"),
    )
    lines = (tmp_path / "handbook" / "deploy.md").read_text().split("\n")
    assert "previous build" in "\n".join(lines[top.start_line - 1 : top.end_line])


def test_index_search_in_an_empty_scope_returns_nothing(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    empty = resolve_scope(config, "TOTHER", "CPUB", ConversationKind.CHANNEL)
    assert empty.is_empty
    index = Index.load(config)
    assert index.search("rollback", empty, 5) == ()
    assert index.engine_name(empty) == "none"


def test_index_search_finds_headings_and_code_identifiers(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    index = Index.load(config)
    assert index.search("follow_redirects", _scope(config), 1)[0].chunk.path == "http/clients.md"
    timeouts = index.search("timeouts", _scope(config), 1)[0].chunk
    assert timeouts.heading_path == ("Clients", "Timeouts")


def test_index_private_collection_is_searched_only_in_its_channel(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    index = Index.load(config)
    public_hits = index.search("payments key vault", _scope(config, "CPUB"), 10)
    assert all(hit.chunk.collection == "handbook" for hit in public_hits)
    private_hits = index.search("payments key vault", _scope(config, "CPAY"), 10)
    assert private_hits[0].chunk.collection == "payments"


def test_index_adjacent_gives_neighbours_in_the_same_file(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    index = Index.load(config)
    hits = index.search("database migrations", _scope(config), 1)
    middle = index.search("rollback previous build", _scope(config), 1)[0].chunk
    before, after = index.adjacent(middle)
    assert before is not None and after is not None
    assert before.path == after.path == middle.path == "deploy.md"
    assert before.end_line < middle.start_line <= middle.end_line < after.start_line
    assert after == hits[0].chunk
    first, _ = index.adjacent(before)
    assert first is None
    _, last = index.adjacent(after)
    assert last is None


def test_index_collections_counts_documents_and_chunks(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    report = _build(config)
    counts = Index.load(config).collections()
    assert counts == {c.name: (c.documents, c.chunks) for c in report.collections}
    assert counts["handbook"][0] == 3
    assert counts["payments"][0] == 1


def test_index_engine_choice_follows_the_config(tmp_path: Path) -> None:
    for engine, expected in (("bm25", "bm25"), ("tantivy", "tantivy"), ("auto", "bm25")):
        config = public_and_secret(tmp_path, engine=engine, state=f".{engine}")
        _build(config)
        assert Index.load(config).engine_name(_scope(config)) == expected


def test_index_refresh_reflects_edits_additions_and_deletions(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    first = _build(config)
    handbook = tmp_path / "handbook"
    (handbook / "oncall.md").write_text("# On-call\n\nEscalate to the zebrafish desk.\n")
    write_tree(handbook, {"new.md": "# New\n\nThe quokka runbook lives here.\n"})
    (handbook / "http" / "clients.md").unlink()
    second = _build(config)
    assert _report(second, "handbook") == CollectionReport(
        "handbook", 3, _report(second, "handbook").chunks, new=1, changed=1, deleted=1, unchanged=1
    )
    assert _report(second, "payments").unchanged == 1
    assert second.generation != first.generation
    assert (second.engines_built, second.engines_reused) == (2, 0)
    index = Index.load(config)
    assert index.generation == second.generation
    assert index.search("zebrafish", _scope(config), 1)[0].chunk.path == "oncall.md"
    assert index.search("quokka", _scope(config), 1)[0].chunk.path == "new.md"
    for gone in ("PagerDuty", "follow_redirects"):
        # No word of it is left to find; the dense side still ranks what is nearest.
        assert index.candidates(gone, _scope(config), 5)[0] == []
        assert not any(gone in hit.chunk.text for hit in index.search(gone, _scope(config), 5))


def test_index_unchanged_rebuild_rebuilds_nothing(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    first = _build(config)
    root = index_root(config)
    stored = [*(root / "engines").iterdir(), *(root / "snapshots").iterdir()]
    before = {p.name: p.stat().st_mtime_ns for p in stored}
    second = _build(config)
    assert second.generation == first.generation
    assert (second.engines_built, second.engines_reused) == (0, 2)
    assert all(c.new == c.changed == c.deleted == 0 for c in second.collections)
    assert {p.name: p.stat().st_mtime_ns for p in stored} == before


def test_index_private_change_rebuilds_only_its_set(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    (tmp_path / "payments" / "keys.md").write_text("# Keys\n\nNew rotation policy.\n")
    report = _build(config)
    assert (report.engines_built, report.engines_reused) == (1, 1)


def test_index_failed_build_leaves_the_previous_index_whole(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    first = _build(config)
    before = Index.load(config).search("rollback", _scope(config, "CPAY"), 5)
    os.rename(tmp_path / "payments", tmp_path / "gone")  # the folder vanishes mid-life
    with pytest.raises(DocbotError, match="payments"):
        _build(config)
    index = Index.load(config)
    assert index.generation == first.generation
    assert index.search("rollback", _scope(config, "CPAY"), 5) == before


def test_index_build_removes_leftovers_of_a_crashed_build(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    leftover = index_root(config) / "engines" / "tantivy-0123.tmp-999"
    leftover.mkdir()
    (leftover / "junk").write_text("half written")
    _build(config)
    assert not leftover.exists()


def test_index_builds_an_unforeseen_collection_set_on_demand(tmp_path: Path) -> None:
    built_with = public_and_secret(tmp_path)
    _build(built_with)
    # The config now also grants CNEW the payments docs; the index was not rebuilt.
    granted = write_config(
        tmp_path,
        [
            {"name": "handbook", "path": "handbook"},
            {"name": "payments", "path": "payments", "access": "private", "channels": ["CNEW"]},
        ],
        {"chunk_tokens": 60},
    )
    index = Index.load(granted)
    hits = index.search("payments key vault", _scope(granted, "CNEW"), 5)
    assert hits[0].chunk.collection == "payments"
    assert index.engine_name(_scope(granted, "CNEW")) == "bm25"


def test_index_unknown_collection_in_a_scope_is_an_error(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook", "nowhere"))
    with pytest.raises(IndexNotBuiltError, match="nowhere"):
        Index.load(config).search("rollback", scope, 3)


def test_collection_sets_enumerates_public_and_each_channel_grant(tmp_path: Path) -> None:
    for name in ("a", "b", "c", "d"):
        write_tree(tmp_path / name, {"x.md": "# X\n\ntext\n"})
    config = write_config(
        tmp_path,
        [
            {"name": "a", "path": "a"},
            {"name": "b", "path": "b", "access": "private", "channels": ["C1", "C2"]},
            {"name": "c", "path": "c", "access": "private", "channels": ["C2"]},
            {"name": "d", "path": "d", "access": "private", "channels": ["C3"]},
        ],
    )
    assert collection_sets(config) == (("a",), ("a", "b"), ("a", "b", "c"), ("a", "d"))


def test_index_text_holds_path_headings_and_text(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    index = Index.load(config)
    chunk = index.search("timeouts", _scope(config), 1)[0].chunk
    text = index_text(chunk)
    assert text.startswith("http/clients\nClients / Timeouts\n")
    assert text.endswith(chunk.text)


HTTPX_DOCS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpora" / "httpx-docs"
# Golden table: question -> (file, section) that must rank first in the real httpx docs.
HTTPX_GOLDEN = {
    "How do I use HTTP/2?": ("http2.md", None),
    # The page's two-sentence intro is merged with its first section, "Redirects", so the
    # chunk is cited by the page title that holds them both.
    "follow_redirects": ("compatibility.md", "Requests Compatibility Guide"),
    "What does raise_for_status do?": ("quickstart.md", "Response Status Codes"),
    "How do I configure an SSL certificate with verify?": ("advanced/ssl.md", None),
    "max_keepalive_connections limits": ("advanced/resource-limits.md", None),
    "How do I mount a transport for a specific domain?": ("advanced/transports.md", None),
    "How do I stream a response body?": ("quickstart.md", "Streaming Responses"),
    "AsyncClient with trio": ("async.md", None),
    "httpx.MockTransport": ("advanced/transports.md", "Mock transports"),
}


def test_index_golden_httpx_questions_rank_their_source_first(tmp_path: Path) -> None:
    if not HTTPX_DOCS.is_dir():
        pytest.skip(f"../shared is absent: {HTTPX_DOCS} holds the httpx docs")
    config = write_config(tmp_path, [{"name": "httpx", "path": str(HTTPX_DOCS.resolve())}])
    build_index(config)  # the real token counter: chunks as docbot makes them
    index = Index.load(config)
    for question, (path, heading) in HTTPX_GOLDEN.items():
        top = index.search(question, _scope(config), 1)[0].chunk
        assert top.path == path, question
        assert heading is None or top.heading == heading, question


def test_index_refuses_a_private_file_inside_a_public_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "payments").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nDeploys go out every weekday.\n", encoding="utf-8")
    (docs / "payments" / "vault.md").write_text(
        "# Vault\n\nThe vault phrase is saffron-lighthouse.\n", encoding="utf-8"
    )
    nested = (
        "teams: [T1]\ncollections:\n  - {name: handbook, path: docs%s}\n"
        "  - {name: payments, path: docs/payments, access: private, channels: [C0PAY]}\n"
    )
    path = tmp_path / "docbot.yml"
    path.write_text(nested % "", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"payments/vault\.md is indexed by both"):
        build_index(load_config(path))
    path.write_text(nested % ', exclude: ["payments/**"]', encoding="utf-8")
    build_index(load_config(path))
    index = Index.load(load_config(path))
    public = resolve_scope(load_config(path), "T1", "C0GEN", ConversationKind.CHANNEL)
    assert all("saffron" not in hit.chunk.text for hit in index.search("vault phrase", public, 5))
    # Two public collections may share files; making one private later is caught at load.
    path.write_text(nested.replace("access: private, channels: [C0PAY]", "") % "", "utf-8")
    build_index(load_config(path))
    path.write_text(nested % "", encoding="utf-8")
    with pytest.raises(ConfigError, match="indexed by both"):
        Index.load(load_config(path))


def test_index_build_report_carries_scan_notes_and_unlisted_folders(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    broken_checkout(tmp_path / "payments", ["keys.md"])
    unlisted = too_deep_to_list(tmp_path / "handbook" / "http")

    report = _build(config)

    [(collection, path, note)] = report.notes
    assert (collection, path) == ("payments", "")  # about the whole collection, not one file
    assert "git log failed: fatal: bad object HEAD" in note
    [skipped] = report.skipped
    assert skipped.collection == "handbook"
    assert skipped.path.startswith(unlisted.relative_to(tmp_path / "handbook").as_posix() + "/")
    assert skipped.reason == "cannot list folder: File name too long"


def _cut(path: Path) -> None:
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size // 2)


def _flip(path: Path) -> None:
    """One byte changed in the middle: the size is right, the content is not."""
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _each(pattern: str, damage: Callable[[Path], object]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        paths = sorted(root.glob(pattern))
        assert paths, pattern
        for path in paths:
            damage(path)

    return apply


# name -> (engine the config asks for, damage done to the index folder)
INDEX_DAMAGE: dict[str, tuple[str, Callable[[Path], None]]] = {
    "truncated snapshot": ("bm25", _each("snapshots/*.pickle", _cut)),
    "flipped snapshot byte": ("bm25", _each("snapshots/*.pickle", _flip)),
    "bm25 docs.npy cut to 100 bytes": (
        "bm25",
        _each("engines/*/docs.npy", lambda p: os.truncate(p, 100)),
    ),
    "bm25 terms.json emptied": (
        "bm25",
        _each("engines/*/terms.json", lambda p: p.write_text("{}")),
    ),
    "bm25 weights byte flipped": ("bm25", _each("engines/*/weights.npy", _flip)),
    "bm25 engine.json unreadable": (
        "bm25",
        _each("engines/*/engine.json", lambda p: p.write_text("{")),
    ),
    "engine folder missing": ("bm25", _each("engines/*", shutil.rmtree)),
    "tantivy meta.json emptied": (
        "tantivy",
        _each("engines/*/meta.json", lambda p: p.write_text("{}")),
    ),
    "tantivy segment truncated": ("tantivy", _each("engines/*/*.idx", _cut)),
    "tantivy segment byte flipped": ("tantivy", _each("engines/*/*.term", _flip)),
}


@pytest.mark.parametrize("damage", sorted(INDEX_DAMAGE))
def test_index_damage_is_refused_at_load_and_repaired_by_build(damage: str, tmp_path: Path) -> None:
    engine, harm = INDEX_DAMAGE[damage]
    config = public_and_secret(tmp_path, engine=engine)
    first = _build(config)
    harm(index_root(config))

    with pytest.raises(IndexNotBuiltError, match=r"run `docbot index` again"):
        Index.load(config)

    repaired = _build(config)
    assert repaired.generation == first.generation
    index = Index.load(config)
    assert index.search("rollback previous build", _scope(config), 1)[0].chunk.heading_path == (
        "Deploy",
        "Rollback",
    )
    hits = index.search("payments key vault", _scope(config, "CPAY"), 1)
    assert hits[0].chunk.collection == "payments"
    assert index.engine_name(_scope(config)) == engine
    # Repaired for good: the next build finds nothing to redo.
    assert _build(config).engines_built == 0


def test_index_build_rebuilds_only_the_damaged_engine(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path, engine="bm25")
    _build(config)
    manifest = json.loads((index_root(config) / "manifest.json").read_text())
    private = next(s["key"] for s in manifest["sets"] if "payments" in s["collections"])
    (index_root(config) / "engines" / private / "terms.json").write_text("{}")

    report = _build(config)

    assert (report.engines_built, report.engines_reused) == (1, 1)
    assert Index.load(config).search("vault", _scope(config, "CPAY"), 1)


def test_index_build_leaves_no_temporary_files(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    _each("engines/*/terms.json", lambda p: p.write_text("{}"))(index_root(config))
    _build(config)
    root = index_root(config)
    names = [p.name for p in root.rglob("*")]
    assert not [name for name in names if ".tmp-" in name or ".damaged-" in name], names


def test_index_is_stale_when_a_collection_selects_other_files(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "payroll").mkdir(parents=True)
    (docs / "guide.md").write_text("# Guide\n\nDeploys go out every weekday.\n", "utf-8")
    (docs / "payroll" / "bands.md").write_text(
        "# Bands\n\nThe salary band is confidential-band-77.\n", "utf-8"
    )
    path = tmp_path / "docbot.yml"
    config_text = "teams: [T1]\ncollections:\n  - {name: handbook, path: docs%s}\n"
    path.write_text(config_text % "", encoding="utf-8")
    build_index(load_config(path))
    # Excluding a folder after indexing must not leave its files searchable.
    path.write_text(config_text % ', exclude: ["payroll/**"]', encoding="utf-8")
    with pytest.raises(IndexNotBuiltError, match="selects other files"):
        Index.load(load_config(path))
    report = build_index(load_config(path))
    assert report.collections[0].documents == 1
    config = load_config(path)
    scope = resolve_scope(config, "T1", "C0GEN", ConversationKind.CHANNEL)
    hits = Index.load(config).search("salary band", scope, 5)
    assert all("confidential" not in hit.chunk.text for hit in hits)
