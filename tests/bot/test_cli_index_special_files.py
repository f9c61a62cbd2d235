"""`docbot index` names every file it does not index, a FIFO called `pipe.md` included."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from bot.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX named pipes")


def test_docbot_index_prints_a_skipped_line_for_a_fifo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "deploy.md").write_text("# Deploys\n\nDeploys go out daily.\n", encoding="utf-8")
    os.mkfifo(handbook / "pipe.md")
    config = tmp_path / "docbot.yml"
    config.write_text(
        "teams: [T1]\ncollections:\n  - name: handbook\n    path: handbook\n"
        "retrieval:\n  dense: false\n",
        encoding="utf-8",
    )
    codes: list[int] = []
    # In a thread: were the FIFO ever opened for reading, the build would wait for a writer.
    indexing = threading.Thread(
        target=lambda: codes.append(main(["index", "--config", str(config)]))
    )
    indexing.start()
    indexing.join(timeout=60)
    if indexing.is_alive():
        with open(handbook / "pipe.md", "wb"):  # let the stuck reader finish, then fail
            pass
        indexing.join()
        pytest.fail("docbot index blocked on the FIFO")
    out = capsys.readouterr().out
    assert codes == [0]
    skipped = [line for line in out.splitlines() if line.startswith("skipped:")]
    assert skipped == [
        "skipped: handbook/pipe.md: not a regular file but a named pipe (FIFO): not read, as "
        "reading one waits"
    ], out
