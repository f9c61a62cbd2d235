"""`docbot index` and `docbot ask` on a `git:` collection: what index prints about each sync,
answers citing the exact indexed commit, and answering from the last good sync when the remote
is gone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from tests.git_repos import Remote, git, needs_git

pytestmark = [needs_git, pytest.mark.usefixtures("offline")]

ROLLBACK = (
    "# Deploys\n\n## Rollback\n\nTo roll back a deploy, run `deployctl rollback --to PREVIOUS`.\n"
    "The rollback takes about four minutes.\n"
)
BLOB = "https://git.example.com/platform/docs/blob/{commit}/docs/{path}#L{start}-L{end}"


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.fixture
def remote(tmp_path: Path) -> Remote:
    remote = Remote(tmp_path / "upstream")
    remote.commit(
        {
            "docs/deploy.md": ROLLBACK,
            "docs/oncall.md": "# On-call\n\nThe on-call rota lives in the ops calendar.\n",
        },
        "docs",
    )
    remote.push()
    return remote


@pytest.fixture
def config(tmp_path: Path, remote: Remote) -> Path:
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: platform\n    git: {remote.url}\n    branch: main\n    subdir: docs\n"
        f'    url: "{BLOB}"\n',
        encoding="utf-8",
    )
    return path


def _index(capsys: pytest.CaptureFixture[str], config: Path) -> list[str]:
    assert main(["index", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    return [line for line in out.splitlines() if line.startswith(("synced:", "stale:"))]


def _ask(capsys: pytest.CaptureFixture[str], config: Path, question: str) -> dict[str, Any]:
    code = main(["ask", question, "--channel", "C0GEN", "--config", str(config), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    result: dict[str, Any] = json.loads(out)
    return result


def test_index_says_what_it_synced_and_answers_link_to_that_commit(
    capsys: pytest.CaptureFixture[str], config: Path, remote: Remote
) -> None:
    head = git(remote.work, "rev-parse", "HEAD")
    source = f"git {remote.url} (branch main)"
    assert _index(capsys, config) == [f"synced: platform: {source} at {head[:12]} (first sync)"]
    answer = _ask(capsys, config, "How do I roll back a deploy?")
    assert answer["status"] == "answered"
    cited = answer["sources"][0]
    assert cited["path"] == "deploy.md"
    expected = f"https://git.example.com/platform/docs/blob/{head}/docs/deploy.md"
    assert cited["url"] == f"{expected}#L{cited['start_line']}-L{cited['end_line']}"
    assert _index(capsys, config) == [f"synced: platform: {source} at {head[:12]} (unchanged)"]


def test_an_edit_and_a_deletion_are_answered_from_after_the_next_index(
    capsys: pytest.CaptureFixture[str], config: Path, remote: Remote
) -> None:
    first = git(remote.work, "rev-parse", "HEAD")
    _index(capsys, config)
    edited = ROLLBACK.replace("about four minutes", "about ninety seconds")
    head = remote.commit({"docs/deploy.md": edited, "docs/oncall.md": None}, "faster rollback")
    remote.push()
    (line,) = _index(capsys, config)
    assert line.endswith(f"at {head[:12]} (was {first[:12]})")
    answer = _ask(capsys, config, "How long does a rollback take?")
    assert answer["status"] == "answered"
    assert "ninety seconds" in " ".join(claim["text"] for claim in answer["claims"])
    assert head in answer["sources"][0]["url"]
    search = ["search", "on-call rota calendar", "--channel", "C0GEN", "--json"]
    code = main([*search, "--config", str(config)])
    hits = json.loads(capsys.readouterr().out)
    assert code == 0 and all(hit["path"] != "oncall.md" for hit in hits)


def test_an_unreachable_remote_is_reported_stale_and_answers_keep_working(
    capsys: pytest.CaptureFixture[str], config: Path, remote: Remote
) -> None:
    head = git(remote.work, "rev-parse", "HEAD")
    _index(capsys, config)
    remote.go_away()
    (line,) = _index(capsys, config)
    assert line.startswith(f"stale: platform: cannot sync from git {remote.url} (branch main): ")
    assert "does not appear to be a git repository" in line
    assert f"answers use commit {head[:12]} from the last good sync at " in line
    assert "UTC (failing since " in line
    answer = _ask(capsys, config, "How do I roll back a deploy?")
    assert answer["status"] == "answered" and head in answer["sources"][0]["url"]


def test_a_force_push_is_indexed_and_linked_at_the_rewritten_commit(
    capsys: pytest.CaptureFixture[str], config: Path, remote: Remote
) -> None:
    remote.commit({"docs/freeze.md": "# Freeze\n\nNo deploys on Fridays.\n"}, "freeze")
    remote.push()
    _index(capsys, config)
    rewritten = remote.rewrite_last({"docs/deploy.md": ROLLBACK.replace("four", "two")}, "redo")
    remote.push(force=True)
    (line,) = _index(capsys, config)
    assert line.startswith("synced: platform:") and f"at {rewritten[:12]} (was " in line
    answer = _ask(capsys, config, "How long does a rollback take?")
    assert rewritten in answer["sources"][0]["url"]
    assert "about two minutes" in " ".join(claim["text"] for claim in answer["claims"])


def test_a_remote_never_reached_fails_index_saying_which_collection_and_why(
    capsys: pytest.CaptureFixture[str], config: Path, remote: Remote
) -> None:
    remote.go_away()
    assert main(["index", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"docbot: error: collection 'platform': cannot clone git {remote.url}")
    assert "Nothing has been synced from it yet" in err
