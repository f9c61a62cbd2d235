"""A cold `docbot search` process: a fresh interpreter that loads only its scope's files (chunks
read one by one from their snapshot files) prints the very hits an in-process search of the
whole loaded index finds, and exits without the interpreter's teardown (bot/cli.py `entry`):
what it printed is all there, flushed, and its exit status is the command's own.

Every test reads one index, built once for the module; a cold process is started only where
what is proven needs a fresh one (output and exit status past `entry`'s `os._exit`). The same
searches run in this process through `main` cover every channel and question."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from retrieval.config import Config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.test_scoped_load import three_collections

QUESTIONS = ("rollback of the payments key", "saffron vault phrase", "deploy previous build")
SEARCH = [sys.executable, "-m", "bot.cli", "search"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, str]:
    """The three collections' index (read, never written, by every test) and its config file."""
    base = tmp_path_factory.mktemp("three")
    return three_collections(base), str(base / "docbot-docbot.yml")


def _docbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SEARCH, *args], capture_output=True, text=True, timeout=120)


def _expected(config: Config, channel: str, question: str, k: int) -> list[list[Any]]:
    """The hits of an in-process search of the whole index, as `docbot serve` loads it."""
    scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
    return [
        [h.chunk.chunk_id, h.chunk.path, h.chunk.start_line, h.chunk.text, h.score]
        for h in Index.load(config).search(question, scope, k)
    ]


def _printed(printed: str) -> list[list[Any]]:
    return [
        [h["chunk_id"], h["path"], h["start_line"], h["text"], h["score"]]
        for h in json.loads(printed)
    ]


def test_cli_search_prints_the_whole_index_hits(
    built: tuple[Config, str], capsys: pytest.CaptureFixture[str]
) -> None:
    config, path = built
    for channel in ("CA", "CB"):
        for question in QUESTIONS:
            code = main(["search", question, "--channel", channel, "--config", path, "--json",
                         "--k", "4"])  # fmt: skip
            got = _printed(capsys.readouterr().out)
            expected = _expected(config, channel, question, 4)
            assert code == 0 and expected and got == expected, (channel, question)


def test_cold_cli_search_prints_the_in_process_hits_and_exits_zero(
    built: tuple[Config, str], capsys: pytest.CaptureFixture[str]
) -> None:
    config, path = built
    question = QUESTIONS[0]  # a private collection's passage, for the channel that may see it
    cold = _docbot(question, "--channel", "CA", "--config", path, "--json", "--k", "4")
    assert cold.returncode == 0, cold.stderr
    expected = _expected(config, "CA", question, 4)
    assert expected and _printed(cold.stdout) == expected
    # Text output, another channel: every hit printed, as the same search in this process.
    cold = _docbot("payments key", "--channel", "CB", "--config", path, "--k", "3")
    assert cold.returncode == 0, cold.stderr
    lines = cold.stdout.splitlines()
    assert [line.split(".")[0].strip() for line in lines] == ["1", "2", "3"]
    assert main(["search", "payments key", "--channel", "CB", "--config", path, "--k", "3"]) == 0
    assert cold.stdout == capsys.readouterr().out


def test_a_failed_search_keeps_its_status_and_message(
    built: tuple[Config, str], tmp_path: Path
) -> None:
    _, path = built
    done = _docbot("payments key", "--channel", "CA", "--config", path, "--k", "0")
    assert done.returncode == 2
    assert "--k must be at least 1" in done.stderr
    missing = _docbot("x", "--channel", "CA", "--config", str(tmp_path / "none.yml"))
    assert missing.returncode != 0 and "docbot" in missing.stderr


def test_hits_that_cannot_be_written_fail_the_search(built: tuple[Config, str]) -> None:
    _, path = built
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as a user's
    with open("/dev/full", "w") as full:  # every write fails: no space left on device
        done = subprocess.run(
            [*SEARCH, "payments key", "--channel", "CA", "--config", path],
            stdout=full,
            stderr=subprocess.PIPE,
            env=buffered,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1
    assert "cannot write the hits (No space left on device)" in done.stderr
