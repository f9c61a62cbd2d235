"""`docbot search` reads only the collections its channel may read; `docbot ask`, which loads
the whole index as `docbot serve` does, reports a missing collection clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from retrieval.config import Config
from retrieval.index import index_root
from tests.retrieval.test_scoped_load import three_collections


def _remove_team_b_snapshot(config: Config) -> Path:
    root = index_root(config)
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    (entry,) = [e for e in manifest["collections"] if e["name"] == "team-b"]
    snapshot = root / entry["snapshot"]
    snapshot.unlink()
    return snapshot


def test_search_in_one_scope_does_not_need_another_collections_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # `ask` answers offline
    config = three_collections(tmp_path)
    missing = _remove_team_b_snapshot(config)
    path = str(tmp_path / "docbot-docbot.yml")
    question = "rollback of the payments key"
    assert main(["search", question, "--channel", "CA", "--config", path, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and hits[0]["collection"] == "payments"
    assert main(["ask", question, "--channel", "CA", "--config", path]) == 1
    error = capsys.readouterr().err
    assert str(missing) in error and "run `docbot index` again" in error
