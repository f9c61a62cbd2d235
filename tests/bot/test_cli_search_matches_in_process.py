"""A cold `docbot search` process (scoped load, chunks read one by one from their snapshot
files) prints the very hits an in-process search of the whole loaded index finds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.test_scoped_load import three_collections

QUESTIONS = ("rollback of the payments key", "saffron vault phrase", "deploy previous build")


def test_cold_cli_search_prints_the_in_process_hits(tmp_path: Path) -> None:
    config = three_collections(tmp_path)
    path = str(tmp_path / "docbot-docbot.yml")
    index = Index.load(config)  # everything, as `docbot serve` loads it
    for channel in ("CA", "CB"):
        scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
        for question in QUESTIONS:
            command = ["search", question, "--channel", channel, "--config", path, "--json"]
            printed = subprocess.run(
                [sys.executable, "-m", "bot.cli", *command, "--k", "4"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            expected = [
                [h.chunk.chunk_id, h.chunk.path, h.chunk.start_line, h.chunk.text, h.score]
                for h in index.search(question, scope, 4)
            ]
            got = [
                [h["chunk_id"], h["path"], h["start_line"], h["text"], h["score"]]
                for h in json.loads(printed)
            ]
            assert expected and got == expected, (channel, question)
