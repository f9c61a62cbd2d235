"""`docbot serve`'s background sync: a pushed commit is indexed within one sync interval, an
unreachable remote keeps the last good index and is logged once, and an edit in a watched
local folder is searchable within seconds. Tests wait on the loop's own rounds, not on time: the
sync intervals pass on a clock the test moves on (tests/grounding/fake_clock.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.live import Reload
from bot.sync_loop import Round, SourceSync
from retrieval.build import build_index
from retrieval.config import Config, load_config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, Scope
from tests.git_repos import Remote, needs_git
from tests.grounding.fake_clock import FakeClock

DEPLOY = "# Deploys\n\nDeploys go out from the release branch every weekday.\n"
WAIT = 30  # seconds: an upper bound for a slow machine, never a pause


def _scope(*names: str) -> Scope:
    return Scope("T1", "C1", ConversationKind.CHANNEL, names)


def _texts(config: Config, *names: str) -> str:
    return "\n".join(chunk.text for chunk in Index.load(config).chunks(_scope(*names)))


def _reload(path: Path) -> Reload:
    def no_answerer(config: Config) -> object:
        raise AssertionError("the sync loop never loads an answerer")

    return Reload(path, no_answerer)  # type: ignore[arg-type]


def _upstream(tmp_path: Path) -> Remote:
    """The team's upstream repository, holding DEPLOY in one pushed commit."""
    remote = Remote(tmp_path / "upstream")
    remote.commit({"deploy.md": DEPLOY}, "deploys", "2026-01-05")
    remote.push()
    return remote


def _git_config(tmp_path: Path, remote: Remote, *, top: str = "", collection: str = "") -> Path:
    """docbot.yml with one git collection, `platform`, BM25 only; `top` and `collection` add
    lines at the top level and in the collection."""
    path = tmp_path / "docbot.yml"
    path.write_text(
        f"teams: [T1]\nretrieval: {{dense: false}}\n{top}collections:\n"
        f"  - name: platform\n    git: {remote.url}\n{collection}",
        encoding="utf-8",
    )
    return path


async def _wait(sync: SourceSync, predicate: Callable[[Round], object]) -> Round:
    return await asyncio.wait_for(sync.wait(lambda r: bool(predicate(r))), WAIT)


async def _let_the_loop_run() -> None:
    """Hand the event loop to the sync task a few times, so a loop that woke before its time
    would have left its sleep (its deadline gone or moved) by the time the test looks. A yield
    to the event loop, not a wait on time."""
    for _ in range(10):
        await asyncio.sleep(0)


def _asleep_until(clock: FakeClock) -> float:
    """How far from now the loop sleeps (it is asleep once it has recorded a round)."""
    (wake,) = clock.deadlines()
    return wake - clock.time


@needs_git
def test_a_pushed_commit_is_indexed_within_one_sync_interval(tmp_path: Path) -> None:
    asyncio.run(_test_a_pushed_commit_is_indexed_within_one_sync_interval(tmp_path))


async def _test_a_pushed_commit_is_indexed_within_one_sync_interval(tmp_path: Path) -> None:
    remote = _upstream(tmp_path)
    path = _git_config(tmp_path, remote, top="sync_interval_seconds: 600\n")
    config = load_config(path)
    build_index(config)
    clock = FakeClock()
    sync = SourceSync(_reload(path), clock=clock, watch=False)
    task = asyncio.create_task(sync.run())
    try:
        first = await _wait(sync, lambda r: bool(r.synced))
        assert not first.indexed  # nothing new since `docbot index`
        assert _asleep_until(clock) == 600  # the configured interval, to its next sync
        remote.commit(
            {"deploy.md": "# Deploys\n\nDeploys go out on Tuesdays only.\n"}, "e", "2026-02-01"
        )
        remote.push()
        clock.advance(599)
        await _let_the_loop_run()
        assert _asleep_until(clock) == 1 and sync.rounds == [first]  # not due yet
        clock.advance(1)
        done = await _wait(sync, lambda r: r.indexed)
        assert done.synced[0].changed
        assert "Tuesdays only" in _texts(config, "platform")
    finally:
        task.cancel()


@needs_git
def test_an_unreachable_remote_keeps_the_index_and_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    asyncio.run(_test_an_unreachable_remote_keeps_the_index_and_is_logged_once(tmp_path, caplog))


async def _test_an_unreachable_remote_keeps_the_index_and_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    remote = _upstream(tmp_path)
    path = _git_config(tmp_path, remote, collection="    sync_interval_seconds: 90\n")
    config = load_config(path)
    build_index(config)
    remote.go_away()
    clock = FakeClock()
    sync = SourceSync(_reload(path), clock=clock, watch=False)
    caplog.set_level(logging.INFO, logger="docbot.sync")
    task = asyncio.create_task(sync.run())
    try:
        await _wait(sync, lambda r: len(sync.rounds) >= 1)
        assert _asleep_until(clock) == 90  # the collection's own interval, not the default
        clock.advance(90)
        await _wait(sync, lambda r: len(sync.rounds) >= 2)  # the second must not log again
        stale = [r for r in caplog.records if r.getMessage().startswith("stale: platform")]
        assert len(stale) == 1 and "failing since" in stale[0].getMessage()
        assert not any(r.indexed for r in sync.rounds)
        assert "release branch" in _texts(config, "platform")
        remote.come_back()
        clock.advance(_asleep_until(clock))
        await _wait(sync, lambda r: r.synced and r.synced[0].ok)
        assert any("works again" in r.getMessage() for r in caplog.records)
    finally:
        task.cancel()


def test_an_edit_in_a_watched_local_folder_is_searchable_within_seconds(tmp_path: Path) -> None:
    asyncio.run(_test_an_edit_in_a_watched_local_folder_is_searchable_within_seconds(tmp_path))


async def _test_an_edit_in_a_watched_local_folder_is_searchable_within_seconds(
    tmp_path: Path,
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "deploy.md").write_text(DEPLOY, encoding="utf-8")
    path = tmp_path / "docbot.yml"
    # state_dir inside the watched folder: the index's own writes must not count as edits.
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\nstate_dir: docs/.state\ncollections:\n"
        "  - name: handbook\n    path: docs\n",
        encoding="utf-8",
    )
    config = load_config(path)
    build_index(config)
    sync = SourceSync(_reload(path))
    task = asyncio.create_task(sync.run())
    try:
        # Edit until the watcher has started and seen one (its start is not signalled).
        for attempt in range(WAIT * 10):
            (docs / "rollback.md").write_text(
                f"# Rollback\n\nRoll back with deploy --undo (try {attempt}).\n", encoding="utf-8"
            )
            try:
                await asyncio.wait_for(sync.wait(lambda r: r.local_change and r.indexed), 0.2)
                break
            except TimeoutError:
                continue
        assert "deploy --undo" in _texts(config, "handbook")
        rounds = len(sync.rounds)
        (docs / ".hidden.md").write_text("never indexed", encoding="utf-8")
        (docs / "deploy.md").write_text(DEPLOY + "\nFridays are frozen.\n", encoding="utf-8")
        await _wait(sync, lambda r: r.indexed and any(x is r for x in sync.rounds[rounds:]))
        assert "Fridays are frozen" in _texts(config, "handbook")
    finally:
        task.cancel()


@needs_git
def test_a_replica_loading_a_published_index_never_syncs(tmp_path: Path) -> None:
    asyncio.run(_test_a_replica_loading_a_published_index_never_syncs(tmp_path))


async def _test_a_replica_loading_a_published_index_never_syncs(tmp_path: Path) -> None:
    remote = _upstream(tmp_path)
    path = _git_config(tmp_path, remote, top="index_dir: published\nsync_interval_seconds: 1\n")
    sync = SourceSync(_reload(path), watch=False)
    task = asyncio.create_task(sync.run())
    try:
        told = await _wait(sync, lambda r: bool(r.skipped))
        assert "docbot index --publish" in told.skipped
        assert sync.rounds == [told]  # nothing synced, nothing built
        assert not (tmp_path / ".docbot" / "sources").exists()
    finally:
        task.cancel()
