"""`docbot search` exits without the interpreter's teardown (bot/cli.py `entry`): what it
printed is all there, flushed, and its exit status is the command's own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.retrieval.test_scoped_load import three_collections


def _docbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", *args], capture_output=True, text=True, timeout=120
    )


def test_a_search_prints_every_hit_and_exits_zero(tmp_path: Path) -> None:
    three_collections(tmp_path)
    config = str(tmp_path / "docbot-docbot.yml")
    done = _docbot("search", "payments key", "--channel", "CA", "--config", config, "--k", "3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(".")[0].strip() for line in lines] == ["1", "2", "3"]


def test_a_failed_search_keeps_its_status_and_message(tmp_path: Path) -> None:
    three_collections(tmp_path)
    config = str(tmp_path / "docbot-docbot.yml")
    done = _docbot("search", "payments key", "--channel", "CA", "--config", config, "--k", "0")
    assert done.returncode == 2
    assert "--k must be at least 1" in done.stderr
    missing = _docbot("search", "x", "--channel", "CA", "--config", str(tmp_path / "none.yml"))
    assert missing.returncode != 0 and "docbot" in missing.stderr


def test_hits_that_cannot_be_written_fail_the_search(tmp_path: Path) -> None:
    three_collections(tmp_path)
    config = str(tmp_path / "docbot-docbot.yml")
    command = [sys.executable, "-m", "bot.cli", "search", "payments key", "--channel", "CA"]
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as a user's
    with open("/dev/full", "w") as full:  # every write fails: no space left on device
        done = subprocess.run(
            [*command, "--config", config],
            stdout=full,
            stderr=subprocess.PIPE,
            env=buffered,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert "cannot write the hits (No space left on device)" in done.stderr
