"""`docbot --version`: what an admin filing a bug pastes (package version, source commit, Python,
index format), printed without a config, an index or a subcommand."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from bot.cli import main
from bot.version import source_commit, version_line, version_text
from retrieval.manifest import FORMAT
from tests.git_repos import git, needs_git


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_cli_version_prints_the_package_version_and_index_format_and_exits_0(
    flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # no docbot.yml here: --version needs none
    with pytest.raises(SystemExit) as done:
        main([flag])
    out = capsys.readouterr().out
    assert done.value.code == 0
    assert out.splitlines()[0] == f"docbot {metadata.version('docbot')}"
    assert f"index format {FORMAT} (tokenizer " in out
    assert "python 3." in out


def test_cli_version_from_the_installed_script(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("docbot")
    if not script.exists():
        pytest.skip(f"no `docbot` script beside {sys.executable}: pip install -e . first")
    done = subprocess.run(
        [str(script), "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("docbot ")


@needs_git
def test_version_names_the_source_commit_and_uncommitted_changes(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'docbot'\n", encoding="utf-8")
    git(tmp_path, "init", "--quiet")
    git(tmp_path, "add", "pyproject.toml")
    git(tmp_path, "commit", "--quiet", "-m", "first")
    head = git(tmp_path, "rev-parse", "--short=12", "HEAD")

    assert source_commit(tmp_path) == head
    assert f"commit {head} (source {tmp_path})" in version_text(tmp_path)
    assert f", commit {head}, index format {FORMAT}" in version_line(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'edited'\n", encoding="utf-8")
    assert source_commit(tmp_path) == f"{head} + uncommitted changes"


def test_version_of_an_install_without_a_checkout_names_no_commit(tmp_path: Path) -> None:
    assert source_commit(tmp_path) is None
    assert "commit" not in version_text(tmp_path)
    assert version_line(tmp_path) == f"docbot {metadata.version('docbot')}, index format {FORMAT}"
