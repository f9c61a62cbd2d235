"""File dates come from the checkout holding the folder, whatever git variables the caller's
environment carries: the same environment as every other git step (git_source.git_environment)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from retrieval.file_dates import file_dates


def test_file_dates_ignore_a_git_object_directory_set_by_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a.md").write_text("# a\n", encoding="utf-8")
    when = "2021-03-04T05:06:07+00:00"
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    env |= {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    identity = ["-c", "user.name=Docs", "-c", "user.email=docs@example.com"]
    for args in (["init", "-q"], ["add", "a.md"], [*identity, "commit", "-q", "-m", "docs"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True)
    elsewhere = tmp_path / "objects"
    elsewhere.mkdir()
    # Set by a caller running inside another git operation (a hook, a script): it would send
    # `git log` to an empty object store, and the dates to the mtime.
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(elsewhere))

    dates, note = file_dates(repo, ["a.md"])

    assert dates == {"a.md": "2021-03-04"}
    assert note == ""
