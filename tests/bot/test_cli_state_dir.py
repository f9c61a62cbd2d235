"""A `state_dir` docbot cannot write (a read-only mount, a path through a file) is a clear error
naming the folder and what to set, not a traceback asking for a bug report."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main


def test_index_into_a_state_dir_that_cannot_be_made_says_what_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "a.md").write_text("# A\n\nRoll back with deployctl.\n")
    (tmp_path / "blocker").write_text("a file where the state folder should be\n")
    config = tmp_path / "docbot.yml"
    config.write_text(
        "state_dir: blocker/state\nteams: [T1]\nretrieval: {dense: false}\n"
        "collections:\n  - name: handbook\n    path: handbook\n"
    )
    assert main(["index", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpectedly" not in err
    assert f"{tmp_path / 'blocker' / 'state'}" in err and "state_dir" in err
    assert "writable" in err
