"""Syncing collections from where their documents live, before `docbot index` scans them.

The seam: `sync_sources(config)` brings each collection's folder up to date and says what
happened, one `SyncOutcome` per collection that has a remote source. A local `path:` folder
needs no sync. A `git:` source is cloned or fetched (retrieval/git_source.py); a `site:` is
crawled into a snapshot of Markdown pages (retrieval/site_source.py).

A remote that cannot be reached keeps the last good sync's files; `sync.json` beside the
checkout records when that was, so the outcome can say "since when".
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from retrieval.config import CollectionConfig, Config
from retrieval.durable import write_atomically
from retrieval.errors import DocbotError
from retrieval.git_source import (
    GIT_TIMEOUT_SECONDS,
    GitError,
    clone,
    fetch_and_reset,
    head_commit,
)
from retrieval.site_crawl import SiteError
from retrieval.site_source import read_page_map, snapshot_revision, sync_site
from retrieval.source_keys import git_checkout, site_home

Clock = Callable[[], datetime]
STATE_FILE = "sync.json"


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    collection: str
    source: str  # what was synced, for people: "git file:///srv/docs.git (branch main)"
    revision: str  # what the index now holds (a commit); "" when nothing was ever synced
    previous: str  # what it held before this sync; "" on the first
    last_success: str  # ISO time (UTC) of the last sync that worked, maybe this one
    error: str = ""  # why this sync failed ("" when it worked); the last good files are used
    failing_since: str = ""  # ISO time (UTC) of the first failure in a row
    notes: tuple[str, ...] = ()  # pages a site sync skipped or kept from before, and why

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def changed(self) -> bool:
        """The sync brought files the index does not have yet."""
        return self.revision != self.previous


def sync_sources(
    config: Config,
    now: Clock | None = None,
    timeout: float = GIT_TIMEOUT_SECONDS,
    only: frozenset[str] | None = None,
) -> tuple[SyncOutcome, ...]:
    """Sync every collection with a remote source (or those named in `only`), in config order.

    A collection left out by `only` is not fetched: its outcome says what is on disk now
    (`settled`), so a build after a partial sync still knows every collection's revision.
    DocbotError when a source has never been synced and cannot be now: there are no files to
    answer from, and the message says which collection, why and what to check.
    """
    clock = now if now is not None else _utc_now
    outcomes = []
    synced: dict[Path, SyncOutcome] = {}  # clone -> its outcome: each is fetched once a run
    for collection in config.collections:
        if only is not None and collection.name not in only:
            outcome = settled(config.state_dir, collection)
        else:
            outcome = sync_collection(config.state_dir, collection, clock, timeout, synced)
        if outcome is None:
            continue
        if not outcome.ok and not outcome.revision:
            raise DocbotError(
                f"collection {collection.name!r}: cannot "
                f"{'crawl' if collection.site else 'clone'} {outcome.source}: "
                f"{outcome.error}. Nothing has been synced from it yet, so there is nothing to "
                "index: check the URL (and branch) in the config file, and that this machine "
                "can reach it (a repository's credentials come from the environment or git's "
                "credential helpers, never from docbot.yml)"
            )
        outcomes.append(outcome)
    if only is None:
        _remove_unused_checkouts(config.state_dir, frozenset(synced))
    return tuple(outcomes)


def settled(state_dir: Path, collection: CollectionConfig) -> SyncOutcome | None:
    """What a remote collection holds on disk now, without asking the remote (None for a
    local folder): its revision, and the last sync's time and error from sync.json."""
    if collection.site is not None:
        home = site_home(state_dir, collection.site)
        revision = snapshot_revision(read_page_map(home))
        source = f"site {collection.site}"
    elif collection.git is not None:
        home = git_checkout(state_dir, collection.git, collection.branch)
        revision = head_commit(home / "repo", GIT_TIMEOUT_SECONDS)
        source = f"git {collection.git}"
    else:
        return None
    state = _read_state(home)
    return SyncOutcome(
        collection.name,
        source,
        revision,
        revision,
        str(state.get("last_success", "")),
        str(state.get("error", "")),
        str(state.get("failing_since", "")),
    )


def sync_collection(
    state_dir: Path,
    collection: CollectionConfig,
    now: Clock,
    timeout: float,
    synced: dict[Path, SyncOutcome],
) -> SyncOutcome | None:
    """None for a collection that needs no sync (a local folder)."""
    if collection.site is not None:
        home = site_home(state_dir, collection.site)
        synced[home] = outcome = _sync_site(home, collection, now, timeout)
        return outcome
    if collection.git is None:
        return None
    home = git_checkout(state_dir, collection.git, collection.branch)
    done = synced.get(home)
    if done is None:
        done = synced[home] = sync_git(home, collection.git, collection.branch, now, timeout)
    if done.revision:
        check_subdir_in(home / "repo", collection, done.revision)
    return dataclasses.replace(done, collection=collection.name)


def sync_git(home: Path, url: str, branch: str | None, now: Clock, timeout: float) -> SyncOutcome:
    """Clone or fetch the repository into `home` (its outcome's collection is filled in by
    the caller, as collections may share a clone)."""
    repo = home / "repo"
    state = _read_state(home)
    source = f"git {url}" + (f" (branch {branch})" if branch else " (its default branch)")
    before = head_commit(repo, timeout)
    try:
        if before:
            fetch_and_reset(repo, branch, timeout)
        else:
            clone(url, branch, repo, timeout)
        revision = head_commit(repo, timeout)
        if not revision:
            raise GitError("the clone has no commit checked out")
    except (GitError, OSError) as exc:
        error = str(exc) if isinstance(exc, GitError) else f"{exc.strerror or exc}"
        return _failed(home, state, "", source, before, error, now)
    synced = _succeeded(home, {"url": url, "commit": revision}, now)
    return SyncOutcome("", source, revision, before, synced)


def _sync_site(home: Path, collection: CollectionConfig, now: Clock, timeout: float) -> SyncOutcome:
    site = collection.site or ""
    state = _read_state(home)
    include, exclude = collection.site_patterns
    source = f"site {site}"
    try:
        done = sync_site(home, site, include, exclude, timeout)
    except SiteError as exc:
        before = snapshot_revision(read_page_map(home))
        return _failed(home, state, collection.name, source, before, str(exc), now)
    synced = _succeeded(home, {"url": site, "revision": done.revision}, now)
    return SyncOutcome(
        collection.name, source, done.revision, done.previous, synced, notes=done.notes
    )


def _failed(
    home: Path,
    state: dict[str, Any],
    collection: str,
    source: str,
    before: str,
    error: str,
    now: Clock,
) -> SyncOutcome:
    """A sync that did not work, git or site: sync.json keeps the last success and notes the
    error and since when; the outcome keeps `before`, the last good files (if any)."""
    failing_since = str(state.get("failing_since") or _iso(now()))
    _write_state(home, {**state, "failing_since": failing_since, "error": error})
    last = str(state.get("last_success", "")) if before else ""
    return SyncOutcome(collection, source, before, before, last, error, failing_since)


def _succeeded(home: Path, synced: dict[str, str], now: Clock) -> str:
    """Record a sync that worked in sync.json (clearing any failure); its ISO time."""
    moment = _iso(now())
    _write_state(home, {**synced, "last_success": moment})
    return moment


def check_subdir_in(repo: Path, collection: CollectionConfig, revision: str) -> None:
    """The collection's `subdir` is a real folder of the checkout: neither missing nor a
    symbolic link, which the repository's content could point anywhere on this machine."""
    if not collection.subdir:
        return
    folder = repo
    for part in collection.subdir.split("/"):
        folder = folder / part
        if folder.is_symlink():
            raise DocbotError(
                f"collection {collection.name!r}: {folder.relative_to(repo).as_posix()!r} is a "
                f"symbolic link in the repository at commit {revision[:12]}, and docbot never "
                "follows links out of a collection: set `subdir` to the folder it points at"
            )
    if not folder.is_dir():
        raise DocbotError(
            f"collection {collection.name!r}: the repository has no folder "
            f"{collection.subdir!r} at commit {revision[:12]}: fix `subdir` in the config "
            "file (it is relative to the repository's root)"
        )


def _remove_unused_checkouts(state_dir: Path, used: frozenset[Path]) -> None:
    """Clones and site snapshots no collection reads any more (its URL or branch changed, or
    it was removed)."""
    for other in (*(state_dir / "sources").glob("git-*"), *(state_dir / "sources").glob("site-*")):
        if other not in used and other.is_dir():
            shutil.rmtree(other, ignore_errors=True)


def _read_state(home: Path) -> dict[str, Any]:
    try:
        value = json.loads((home / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _write_state(home: Path, state: dict[str, Any]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    write_atomically(home / STATE_FILE, json.dumps(state, indent=1).encode("utf-8"))


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def shown_time(iso: str) -> str:
    """`2026-12-01T09:50:12Z` as `2026-12-01 09:50 UTC`, for people."""
    return iso.replace("T", " ")[:16] + " UTC" if iso else "never"
