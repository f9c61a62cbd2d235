"""docbot.yml's source keys: exactly one of `path:` and `git:`, git's `branch` and `subdir`,
and no credentials in a git URL. Each error names the file, collection, key and fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import ConfigError
from retrieval.links import source_url


def _load(tmp_path: Path, collection: str) -> str:
    path = tmp_path / "docbot.yml"
    path.write_text(f"teams: [T1]\ncollections:\n  - name: platform\n{collection}")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: invalid configuration:")
    return message


def test_both_path_and_git_is_refused(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    message = _load(tmp_path, "    path: docs\n    git: https://git.example.com/docs.git\n")
    assert "collections[0] (platform): collection 'platform' names both `path` and `git`" in message
    assert "keep one" in message


def test_neither_path_nor_git_says_what_to_add(tmp_path: Path) -> None:
    message = _load(tmp_path, "    access: public\n")
    assert (
        "names no source: add `path: <folder>`" in message and "`git: <repository URL>`" in message
    )


@pytest.mark.parametrize("subdir", ["../other", "docs/../../etc", "/etc"])
def test_a_subdir_outside_the_repository_is_refused(tmp_path: Path, subdir: str) -> None:
    message = _load(tmp_path, f"    git: https://git.example.com/docs.git\n    subdir: {subdir}\n")
    assert "collections[0] (platform).subdir: subdir" in message
    assert "relative to its root" in message


@pytest.mark.parametrize(
    "url",
    [
        "https://user:s3cret@git.example.com/docs.git",
        "https://ghp_token@github.com/team/docs.git",
        "ssh://git:hunter2@git.example.com/docs.git",
        "git:hunter2@git.example.com:team/docs.git",
    ],
)
def test_credentials_in_a_git_url_are_refused_and_where_they_go_instead(
    tmp_path: Path, url: str
) -> None:
    message = _load(tmp_path, f"    git: {url}\n")
    assert "collections[0] (platform).git: git URL has credentials in it" in message
    assert "environment or git's own credential helpers" in message
    assert "s3cret" not in message and "ghp_token" not in message and "hunter2" not in message


def test_a_query_string_in_a_git_url_is_refused_as_a_token_carrier(tmp_path: Path) -> None:
    message = _load(tmp_path, "    git: https://git.example.com/docs.git?private_token=s3cret\n")
    assert "collections[0] (platform).git: git URL has a query string" in message
    assert "'https://git.example.com/docs.git'" in message and "s3cret" not in message


def test_branch_without_git_is_refused(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    message = _load(tmp_path, "    path: docs\n    branch: main\n")
    assert "has `branch`, which only applies to a `git:` source" in message


def test_a_commit_placeholder_needs_a_git_source(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    message = _load(tmp_path, "    path: docs\n    url: https://x.example.com/{commit}/{path}\n")
    assert "url uses {commit}, which only a `git:` source has" in message


def test_a_git_collection_reads_its_clone_under_state_dir(tmp_path: Path) -> None:
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nstate_dir: state\ncollections:\n  - name: platform\n"
        "    git: git@git.example.com:team/docs.git\n    branch: release/2.0\n    subdir: docs\n"
        '    url: "https://git.example.com/team/docs/blob/{commit}/docs/{path}#L{start}-L{end}"\n'
    )
    collection = load_config(path).collection("platform")
    folder = collection.folder
    assert folder.is_relative_to(tmp_path / "state" / "sources")
    assert folder.parts[-2:] == ("repo", "docs")
    url = source_url(collection, "a b.md", 3, 9, commit="0123abcd")
    assert url == "https://git.example.com/team/docs/blob/0123abcd/docs/a%20b.md#L3-L9"
    assert source_url(collection, "a.md", 3, 9) is None  # no indexed revision: no link
