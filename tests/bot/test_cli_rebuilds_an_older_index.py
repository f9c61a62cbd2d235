"""An index an older docbot built is not damaged: loading it says so and names the fix, and
`docbot index` rebuilds it where it is, without the user deleting anything."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from retrieval.config import Config
from retrieval.errors import IndexOutdatedError
from retrieval.index import Index, index_root
from retrieval.manifest import FORMAT
from tests.retrieval.test_scoped_load import three_collections

OLDER = "was built by an older, incompatible docbot version"


def _manifest(config: Config) -> tuple[Path, dict[str, Any]]:
    path = index_root(config) / "manifest.json"
    return path, json.loads(path.read_text("utf-8"))


def _as_built_before_engine_format_3(config: Config) -> None:
    """What an older docbot left: its engine folders under their own keys, each engine.json
    of format 2, recorded in a manifest this docbot can read."""
    path, manifest = _manifest(config)
    engines = index_root(config) / "engines"
    for entry in manifest["sets"]:
        folder = engines / entry["key"]
        meta = json.loads((folder / "engine.json").read_text("utf-8"))
        data = json.dumps({**meta, "format": 2}).encode("utf-8")
        (folder / "engine.json").write_bytes(data)
        entry["files"]["engine.json"] = [len(data), hashlib.sha256(data).hexdigest()]
        entry["key"] = f"old-{entry['key']}"
        folder.rename(engines / entry["key"])
    path.write_text(json.dumps(manifest), "utf-8")


def _index_then_search(config: Config, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(config.state_dir.parent / "docbot-docbot.yml")
    assert main(["index", "--config", path]) == 0
    Index.load(config)  # no error: the whole index reads again
    capsys.readouterr()
    assert (
        main(["search", "rollback of the payments key", "--channel", "CA", "--config", path]) == 0
    )
    assert "payments" in capsys.readouterr().out


def test_an_older_manifest_format_is_reported_as_older_and_docbot_index_rebuilds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = three_collections(tmp_path)
    path, manifest = _manifest(config)
    path.write_text(json.dumps({**manifest, "format": FORMAT - 1}), "utf-8")
    with pytest.raises(IndexOutdatedError) as refused:
        Index.load(config)
    message = str(refused.value)
    assert OLDER in message and "run `docbot index` again" in message
    assert "damaged" not in message
    _index_then_search(config, capsys)


def test_an_engine_from_before_format_3_is_not_called_damaged_and_docbot_index_rebuilds_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = three_collections(tmp_path)
    _as_built_before_engine_format_3(config)
    with pytest.raises(IndexOutdatedError) as refused:
        Index.load(config)
    message = str(refused.value)
    assert "the search engine for" in message and "needs rebuilding" in message
    assert "written by an older, incompatible docbot version (engine format 2" in message
    assert "run `docbot index` again" in message and "damaged" not in message
    _index_then_search(config, capsys)


def test_an_outdated_index_names_both_formats_and_docbot_version(tmp_path: Path) -> None:
    """An admin filing a bug can tell which docbot built what: the formats are named."""
    config = three_collections(tmp_path)
    path, manifest = _manifest(config)
    path.write_text(json.dumps({**manifest, "format": FORMAT - 1}), "utf-8")
    with pytest.raises(IndexOutdatedError) as refused:
        Index.load(config)
    assert f"(index format {FORMAT - 1}; this docbot reads {FORMAT}: `docbot --version`)" in str(
        refused.value
    )


def test_an_index_from_a_newer_docbot_says_to_upgrade_before_rebuilding_it(
    tmp_path: Path,
) -> None:
    """Rebuilding is not the only fix, nor the first: it replaces the newer docbot's index."""
    config = three_collections(tmp_path)
    path, manifest = _manifest(config)
    path.write_text(json.dumps({**manifest, "format": FORMAT + 1}), "utf-8")
    with pytest.raises(IndexOutdatedError) as refused:
        Index.load(config)
    message = str(refused.value)
    assert "was built by a newer, incompatible docbot version" in message
    assert f"(index format {FORMAT + 1}; this docbot reads {FORMAT}" in message
    assert "upgrade this docbot to the version that built it" in message
    assert "or run `docbot index` again" in message and "replaces the newer index" in message
