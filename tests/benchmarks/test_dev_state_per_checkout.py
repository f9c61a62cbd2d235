"""The dev question sets' state folder is shared by every worktree by default: a set inside the
checkout (docbot's own docs/) must keep its config and index per checkout, or one worktree's run
reads the docs/ of whichever worktree ran last. A shared corpus keeps the state it is given."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmarks.dev_questions import CORPORA, REPO, SETS, corpus_config

MANUAL = "docbot-docs"


def test_the_manual_sets_config_and_index_are_kept_per_checkout(tmp_path: Path) -> None:
    given = tmp_path / MANUAL
    config = corpus_config(MANUAL, given)
    assert not given.exists()  # nothing written where another checkout writes too
    kept = config.state_dir.parent
    assert kept.parent == tmp_path and kept.name.startswith(f"{MANUAL}-")
    written = yaml.safe_load((kept / "docbot.yml").read_text(encoding="utf-8"))
    assert Path(written["collections"][0]["path"]) == (REPO / "docs").resolve()
    # The same checkout finds its state again; the tag is not a fresh folder each run.
    assert corpus_config(MANUAL, given).state_dir == config.state_dir


@pytest.mark.skipif(not (CORPORA / SETS["httpx"][0]).is_dir(), reason="../shared is absent")
def test_a_shared_corpus_keeps_the_state_it_is_given(tmp_path: Path) -> None:
    assert corpus_config("httpx", tmp_path / "httpx").state_dir == tmp_path / "httpx" / "state"
