"""A rebuild tokenizes only the files that changed; stored tokens never change a result."""

from __future__ import annotations

import json
from pathlib import Path

from retrieval.config import Config
from retrieval.index import BuildReport, Index, build_index, index_root
from tests.retrieval.docs_tree import WordCounter, public_and_secret, public_and_secret_results

QUERIES = ("zebrafish desk", "redirects client", "PagerDuty rotation", "keys policy")


def _build(config: Config) -> BuildReport:
    return build_index(config, WordCounter())


def _results(config: Config) -> list[list[tuple[str, int, float]]]:
    return public_and_secret_results(config, QUERIES)


def _edit(base: Path) -> None:
    (base / "handbook" / "oncall.md").write_text("# On-call\n\nEscalate to the zebrafish desk.\n")


def test_a_one_file_edit_tokenizes_that_file_only_and_ranks_as_a_fresh_build(
    tmp_path: Path,
) -> None:
    config = public_and_secret(tmp_path / "a")
    first = _build(config)
    assert first.tokenized == sum(c.chunks for c in first.collections)
    _edit(tmp_path / "a")
    second = _build(config)
    edited = Index.load(config).collections()
    assert second.engines_built == 2  # both sets hold the public handbook
    assert 0 < second.tokenized <= 2  # the edited file's chunk(s) only
    fresh = public_and_secret(tmp_path / "b")
    _edit(tmp_path / "b")
    _build(fresh)
    assert Index.load(fresh).collections() == edited
    assert _results(config) == _results(fresh)


def test_a_damaged_token_store_is_not_used_and_is_written_again(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config)
    root = index_root(config)
    stores = sorted((root / "tokens").iterdir())
    assert [p.name.split("-")[0] for p in stores] == ["handbook", "payments"]
    stores[0].write_bytes(stores[0].read_bytes()[:-3] + b"xyz")
    _edit(tmp_path)
    report = _build(config)
    handbook = next(c for c in report.collections if c.name == "handbook")
    assert report.tokenized == handbook.chunks  # all of it: the damaged store was refused
    manifest = json.loads((root / "manifest.json").read_text())
    entry = next(e for e in manifest["collections"] if e["name"] == "handbook")["tokens"]
    assert (root / entry["file"]).stat().st_size == entry["bytes"]
    fresh = public_and_secret(tmp_path / "fresh")
    _edit(tmp_path / "fresh")
    _build(fresh)
    assert _results(config) == _results(fresh)
