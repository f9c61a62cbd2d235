"""`docbot serve` keeping its documents current, in the background and without blocking answers.

Git and site collections are synced on their schedule (`sync_interval_seconds`, top-level or per
collection); local folders are watched (watchfiles) so an edit is searchable within seconds.
When something changed, the index is rebuilt off the event loop under the builders' lock
(bot/building.py) and written atomically; the running bot swaps it in from the next question as
it does for `docbot index` (bot/live.py), with the access rules of the config it was built for.
A source that cannot be reached keeps its last good files; the log says which, why and since
when, once when it starts failing and once when it recovers. A process that loads a published
index (`index_dir`, `--index`) is a read-only replica: the publisher syncs, not it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from bot.building import index_once
from bot.live import Reload
from grounding.deadline import Clock, SystemClock
from retrieval.config import Config
from retrieval.errors import DocbotError
from retrieval.manifest import SnapshotCache
from retrieval.sources import SyncOutcome, shown_time, sync_sources

log = logging.getLogger("docbot.sync")

# Edits arrive in bursts (an editor's save, a `git pull` into a watched folder): wait this long
# after the last one before re-indexing.
WATCH_DEBOUNCE_MS = 500


@dataclass(frozen=True, slots=True)
class Round:
    """One pass: the collections synced, whether local files changed, whether it re-indexed."""

    synced: tuple[SyncOutcome, ...]
    local_change: bool
    indexed: bool
    error: str = ""
    skipped: str = ""  # why this process does not sync at all (a read-only replica)


class SourceSync:
    """The background task `docbot serve` runs: `await SourceSync(reload).run()`.

    `rounds` lists what each pass did; `wait(predicate)` returns once a pass satisfies it (tests
    wait on this, not on time). `clock` tells the time and sleeps until the next collection is
    due (tests pass one they move on by hand, so a sync interval takes no real time)."""

    def __init__(
        self,
        reload: Reload,
        *,
        clock: Clock | None = None,
        watch: bool = True,
    ) -> None:
        self._reload = reload
        self._clock: Clock = clock or SystemClock()
        self._watch = watch
        self._config: Config | None = None
        self._next: dict[str, float] = {}  # collection -> clock time of its next sync
        self._local = asyncio.Event()
        self._failing: dict[str, str] = {}  # collection -> the error last logged
        self._told_published = False
        self._snapshots = SnapshotCache()  # this loop builds again and again: no re-unpickling
        self.rounds: list[Round] = []
        self._passed = asyncio.Condition()

    async def wait(self, predicate: Callable[[Round], bool]) -> Round:
        async with self._passed:
            await self._passed.wait_for(lambda: any(predicate(r) for r in self.rounds))
        return next(r for r in self.rounds if predicate(r))

    async def run(self) -> None:
        watcher: asyncio.Task[None] | None = None
        watched: tuple[Path, ...] = ()
        try:
            while True:
                config = await asyncio.to_thread(self._current_config)
                if config.index_dir is not None:
                    # Replicas load a published index read-only; the one that publishes it
                    # (`docbot index --publish`, e.g. deploy/docbot-index.timer) syncs.
                    await self._published(config.index_dir)
                    await self._sleep(config)
                    continue
                folders = _local_folders(config)
                if self._watch and folders != watched:
                    if watcher is not None:
                        watcher.cancel()
                    watched = folders
                    watcher = (
                        asyncio.create_task(self._watch_folders(folders, config))
                        if folders
                        else None
                    )
                due = self._due(config)
                local = self._local.is_set()
                self._local.clear()
                if due or local:
                    done = await asyncio.to_thread(self._pass, config, due, local)
                    async with self._passed:
                        self.rounds.append(done)
                        self._passed.notify_all()
                await self._sleep(config)
        finally:
            if watcher is not None:
                watcher.cancel()

    async def _published(self, index_dir: Path) -> None:
        if self._told_published:
            return
        self._told_published = True
        why = (
            f"the index is published in {index_dir} and loaded read-only: this process does "
            "not sync or re-index; `docbot index --publish` does (docs/deploy.md)"
        )
        log.info("%s", why)
        async with self._passed:
            self.rounds.append(Round((), False, False, skipped=why))
            self._passed.notify_all()

    def _current_config(self) -> Config:
        """docbot.yml as it is now; an unusable edit keeps the last good one (bot/live.py logs
        why when it next reloads)."""
        try:
            self._config = self._reload.read_config(self._reload.config_path)
        except Exception:
            if self._config is None:
                raise
        return self._config

    def _due(self, config: Config) -> frozenset[str]:
        now = self._clock.now()
        remote = [c for c in config.collections if c.git is not None or c.site is not None]
        for collection in remote:
            # A collection seen for the first time is synced now: serve may start long after
            # the index was built.
            self._next.setdefault(collection.name, now)
        names = {c.name for c in remote}
        for gone in set(self._next) - names:
            del self._next[gone]
        due = frozenset(name for name, at in self._next.items() if at <= now)
        for collection in remote:
            if collection.name in due:
                self._next[collection.name] = now + config.sync_interval(collection)
        return due

    async def _sleep(self, config: Config) -> None:
        wake = min(self._next.values(), default=self._clock.now() + config.sync_interval_seconds)
        with contextlib.suppress(TimeoutError):  # the time came before an edit
            async with self._clock.timeout(max(0.05, wake - self._clock.now())):
                await self._local.wait()

    def _pass(self, config: Config, due: frozenset[str], local: bool) -> Round:
        try:
            outcomes = sync_sources(config, only=due)
        except DocbotError as exc:
            log.error("cannot sync: %s", exc)
            return Round((), local, False, str(exc))
        self._log_outcomes(outcomes, due)
        changed = [o.collection for o in outcomes if o.collection in due and o.changed]
        if not changed and not local:
            return Round(outcomes, local, False)
        try:
            report, _ = index_once(config, sync=lambda _: outcomes, cache=self._snapshots)
        except Exception as exc:  # the edge: a failed build never stops the bot or the loop
            log.exception("re-indexing after %s failed; answers use the previous index",
                          ", ".join(changed) or "a local edit")  # fmt: skip
            return Round(outcomes, local, False, f"{type(exc).__name__}: {exc}")
        log.info(
            "re-indexed after %s: %d documents, %d chunks (generation %s)",
            ", ".join(f"a new revision of {name}" for name in changed) or "a local edit",
            sum(c.documents for c in report.collections),
            sum(c.chunks for c in report.collections),
            report.generation,
        )
        return Round(outcomes, local, True)

    def _log_outcomes(self, outcomes: tuple[SyncOutcome, ...], due: frozenset[str]) -> None:
        for outcome in (o for o in outcomes if o.collection in due):
            logged = self._failing.get(outcome.collection)
            if not outcome.ok and logged != outcome.error:
                self._failing[outcome.collection] = outcome.error
                log.warning(
                    "stale: %s: cannot sync from %s: %s; answering from its last good sync at "
                    "%s (failing since %s)", outcome.collection, outcome.source, outcome.error,
                    shown_time(outcome.last_success), shown_time(outcome.failing_since),
                )  # fmt: skip
            elif outcome.ok and logged is not None:
                del self._failing[outcome.collection]
                log.info("%s: syncing from %s works again", outcome.collection, outcome.source)

    async def _watch_folders(self, folders: tuple[Path, ...], config: Config) -> None:
        # The index is written under state_dir, which may sit inside a watched folder: its own
        # writes must not look like edits (or every build would start another).
        ignored = tuple(p for p in (config.state_dir, config.index_dir) if p is not None)

        def is_edit(_: watchfiles.Change, path: str) -> bool:
            changed = Path(path)
            if any(changed.is_relative_to(p) for p in ignored):
                return False
            root = next((f for f in folders if changed.is_relative_to(f)), None)
            parts = changed.relative_to(root).parts if root is not None else changed.parts
            return not any(part.startswith(".") for part in parts)  # never indexed either

        try:
            async for _ in watchfiles.awatch(
                *folders,
                watch_filter=is_edit,
                debounce=WATCH_DEBOUNCE_MS,
                recursive=True,
            ):
                self._local.set()
        except (OSError, RuntimeError) as exc:
            log.warning(
                "cannot watch %s for edits (%s): local folders are re-indexed only by "
                "`docbot index` until docbot serve restarts",
                ", ".join(map(str, folders)),
                exc,
            )


def _local_folders(config: Config) -> tuple[Path, ...]:
    return tuple(c.folder for c in config.collections if c.git is None and c.site is None)
