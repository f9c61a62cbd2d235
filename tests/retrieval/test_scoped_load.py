"""A load for one scope reads that scope's collections only, and checks what it reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from retrieval.config import Config
from retrieval.errors import ConfigError, IndexNotBuiltError
from retrieval.index import Index, build_index, index_root
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.retrieval.docs_tree import (
    PUBLIC_DOCS,
    SECRET_DOCS,
    WordCounter,
    write_config,
    write_tree,
)

TEAM_B_DOCS = {"b.md": "# Team B\n\nThe saffron vault phrase opens the team B cupboard.\n"}


def three_collections(base: Path) -> Config:
    """`handbook` (public), `payments` (private to CA) and `team-b` (private to CB)."""
    write_tree(base / "handbook", PUBLIC_DOCS)
    write_tree(base / "payments", SECRET_DOCS)
    write_tree(base / "team-b", TEAM_B_DOCS)
    collections: list[dict[str, object]] = [
        {"name": "handbook", "path": "handbook"},
        {"name": "payments", "path": "payments", "access": "private", "channels": ["CA"]},
        {"name": "team-b", "path": "team-b", "access": "private", "channels": ["CB"]},
    ]
    config = write_config(base, collections, {"chunk_tokens": 60})
    build_index(config, WordCounter())
    return config


def _scope(config: Config, channel: str) -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


def _files_of(config: Config, name: str) -> list[Path]:
    """Every index file that holds collection `name`: its snapshot, tokens, vectors, and the
    engines of every collection set it is in."""
    root = index_root(config)
    manifest: dict[str, Any] = json.loads((root / "manifest.json").read_text("utf-8"))
    (entry,) = [e for e in manifest["collections"] if e["name"] == name]
    files = [root / entry["snapshot"]]
    files += [root / entry[part]["file"] for part in ("vectors", "tokens") if part in entry]
    files += [root / "engines" / s["key"] for s in manifest["sets"] if name in s["collections"]]
    return files


def _remove(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir():
            for item in path.iterdir():
                item.unlink()
            path.rmdir()
        else:
            path.unlink()


def _found(index: Index, scope: Scope) -> list[tuple[str, str, float]]:
    hits = index.search("rollback of the payments key", scope, 5)
    return [(hit.chunk.collection, hit.chunk.chunk_id, hit.score) for hit in hits]


def test_a_scoped_load_ranks_exactly_as_a_full_one(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    scope = _scope(config, "CA")
    scoped = Index.load(config, collections=scope.collections)
    assert sorted(scoped.collections()) == ["handbook", "payments"]
    found = _found(scoped, scope)
    assert found and {collection for collection, _, _ in found} <= {"handbook", "payments"}
    assert found == _found(Index.load(config), scope)


def test_a_scoped_load_never_opens_another_collections_files(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    _remove(_files_of(config, "team-b"))
    scope = _scope(config, "CA")
    assert _found(Index.load(config, collections=scope.collections), scope)
    # A load of everything (what `docbot serve` does) still finds what is missing, and says so.
    with pytest.raises(IndexNotBuiltError, match=r"team-b.*docbot index"):
        Index.load(config)


def test_a_scoped_load_still_refuses_its_own_damaged_files(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    scope = _scope(config, "CA")
    read_at_load = [
        file
        for path in _files_of(config, "payments")
        if "/tokens/" not in str(path)  # the token store is read by builds only
        for file in (sorted(path.iterdir()) if path.is_dir() else [path])
    ]
    assert len(read_at_load) > 3
    for path in read_at_load:
        original = path.read_bytes()
        path.write_bytes(original[:-4] + bytes(b ^ 0xFF for b in original[-4:]))
        with pytest.raises(IndexNotBuiltError, match="docbot index"):
            # A snapshot's chunk records and a vectors file's rows are checked as they are read
            # (test_snapshot_file.py, test_vectors_file.py): the search reads every row here.
            index = Index.load(config, collections=scope.collections)
            index.chunks(scope)
            _found(index, scope)
        path.write_bytes(original)
    # Whole again: it loads (so each refusal above was the damaged file's).
    assert _found(Index.load(config, collections=scope.collections), scope)


def test_a_scoped_index_refuses_a_scope_it_did_not_load(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    index = Index.load(config, collections=_scope(config, "CA").collections)
    with pytest.raises(ValueError, match="team-b were not loaded"):
        index.search("saffron vault", _scope(config, "CB"), 3)


def test_a_scoped_load_still_checks_nested_collections_with_other_readers(
    tmp_path: Path,
) -> None:
    """`inner` nests in `outer`'s folder: indexed with the same readers, then the config gives
    it others. A load for `outer`'s scope must read `inner` too, to find the shared files."""
    write_tree(tmp_path / "docs", {"a.md": SECRET_DOCS["keys.md"]})
    write_tree(tmp_path / "docs" / "inner", {"b.md": TEAM_B_DOCS["b.md"]})
    collections: list[dict[str, object]] = [
        {"name": "outer", "path": "docs", "access": "private", "channels": ["CA"]},
        {"name": "inner", "path": "docs/inner", "access": "private", "channels": ["CA"]},
    ]
    build_index(write_config(tmp_path, collections, {"chunk_tokens": 60}), WordCounter())
    collections[1]["channels"] = ["CB"]
    config = write_config(tmp_path, collections, {"chunk_tokens": 60})
    with pytest.raises(ConfigError, match=r"inner/b\.md is indexed by both"):
        Index.load(config, collections=("outer",))
