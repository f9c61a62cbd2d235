"""`docbot index --publish DIR` and `index_dir:`: the builder publishes a version, and `search`
or `ask` under a config naming that folder read the published index, not state_dir's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.bot.test_cli import _run
from tests.bot.test_cli import config as config  # the fixture, shared


def test_cli_index_publish_then_a_replica_config_searches_the_published_index(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "published"
    code, out, _ = _run(capsys, "index", "--config", str(config), "--publish", str(dest))
    assert code == 0 and f"published: {dest}/versions/" in out
    code, out, _ = _run(capsys, "index", "--config", str(config), "--publish", str(dest))
    assert code == 0 and "already published; CURRENT points at it" in out

    # A replica: the same collections, no index of its own, index_dir naming the folder.
    shutil.rmtree(config.parent / ".docbot" / "index")
    replica = config.parent / "replica.yml"
    replica.write_text(config.read_text() + f"index_dir: {dest}\n", encoding="utf-8")
    code, out, err = _run(
        capsys, "search", "roll back a deploy", "--channel", "C0GEN", "--config", str(replica)
    )
    assert code == 0, err
    assert "handbook  deploy.md" in out


def test_cli_search_with_nothing_published_says_how_to_publish(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = tmp_path / "empty"
    replica = config.parent / "replica.yml"
    replica.write_text(config.read_text() + f"index_dir: {dest}\n", encoding="utf-8")
    code, _, err = _run(capsys, "search", "roll back", "--channel", "C0GEN", "--config",
                        str(replica))  # fmt: skip
    assert code == 1
    assert f"nothing is published in {dest} yet: run `docbot index --publish {dest}`" in err
