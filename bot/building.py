"""Building the index where a running docbot loads it: one builder at a time, then published
when the config names a published index. `docbot index` and `docbot serve`'s sync both build
through here."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from bot.settings import Settings
from bot.store.select import database_url
from retrieval.artifact import Published, builder_lock, publish
from retrieval.build import Progress, Sync
from retrieval.config import Config
from retrieval.index import BuildReport, build_index, index_root
from retrieval.manifest import SnapshotCache
from retrieval.sources import sync_sources


def index_once(
    config: Config,
    *,
    publish_to: Path | None = None,
    sync: Sync = sync_sources,
    progress: Progress | None = None,
    waiting: Callable[[str], None] | None = None,
    cache: SnapshotCache | None = None,
) -> tuple[BuildReport, Published | None]:
    """Sync (unless `sync` says otherwise), build, and publish to `publish_to` or the config's
    `index_dir`, holding the builders' lock throughout. `cache`: one per long-lived builder
    (retrieval.manifest.SnapshotCache)."""
    dest = publish_to or config.index_dir
    with one_builder(config, dest or index_root(config), waiting):
        report = build_index(config, progress=progress, sync=sync, cache=cache)
        published = None if dest is None else publish(config, dest)
    return report, published


@contextlib.contextmanager
def one_builder(
    config: Config, folder: Path, waiting: Callable[[str], None] | None = None
) -> Iterator[None]:
    """One builder at a time: a lock file where it writes, and, when the answer store is
    PostgreSQL, an advisory lock there too (builders on other machines share the database).
    A second one waits, then finds the work done."""
    # Only the store's URL: a Slack token in the builder's environment is not its business.
    database = {name: os.environ[name] for name in ("DOCBOT_DATABASE_URL",) if name in os.environ}
    url = database_url(config, Settings.from_env(database))
    with contextlib.ExitStack() as held:
        if url is not None:
            from bot.store.postgres_lock import build_lock  # only with PostgreSQL: see bot.store

            held.enter_context(build_lock(url, waiting))
        held.enter_context(builder_lock(folder, waiting))
        yield
