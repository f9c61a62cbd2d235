"""A file or folder whose name is not valid UTF-8 is skipped with its reason, never a crash:
the rest of the collection is indexed and `docbot index` says which name to fix."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.cli import main
from retrieval.config import CollectionConfig
from retrieval.files import find_files

pytestmark = pytest.mark.skipif(
    os.name != "posix" or os.fsencode("\udcff") != b"\xff",
    reason="needs a POSIX file system that takes any bytes as a name",
)


def _bad_names(root: Path) -> None:
    (root / "ok.md").write_text("# Deploys\n\nDeploys go out every weekday.\n", encoding="utf-8")
    (Path(os.fsdecode(bytes(root) + b"/caf\xe9.md"))).write_text("# Latin-1 name\n\nx\n")
    folder = Path(os.fsdecode(bytes(root) + b"/r\xe9sum\xe9"))
    folder.mkdir()
    (folder / "inside.md").write_text("# Inside\n\nnever reached\n", encoding="utf-8")


def test_find_files_reports_undecodable_names_and_keeps_the_rest(tmp_path: Path) -> None:
    _bad_names(tmp_path)
    found = find_files(CollectionConfig(name="d", path=tmp_path))
    assert found.paths == ("ok.md",)
    assert [s.path for s in found.skipped] == ["caf\\xe9.md", "r\\xe9sum\\xe9/"]
    assert all("not valid UTF-8" in s.reason and "rename" in s.reason for s in found.skipped)


def test_docbot_index_skips_an_undecodable_name_instead_of_crashing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    _bad_names(docs)
    config = tmp_path / "docbot.yml"
    config.write_text(
        f"state_dir: {tmp_path / 'state'}\nteams: [T1]\ncollections:\n"
        f"  - name: handbook\n    path: {docs}\n    access: public\n",
        encoding="utf-8",
    )
    assert main(["index", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "skipped: handbook/caf\\xe9.md: its name is not valid UTF-8" in out
    assert main(["search", "weekday deploys", "--channel", "C1", "--config", str(config)]) == 0
    assert "ok.md" in capsys.readouterr().out
