"""Which answer store a process opens: PostgreSQL when a database URL is set
(DOCBOT_DATABASE_URL wins over docbot.yml's `database_url`), else SQLite in state_dir."""

from __future__ import annotations

import logging
from pathlib import Path

from bot.settings import Settings
from bot.store.contract import AnswerStore
from bot.store.sqlite import SQLiteAnswerStore
from retrieval.config import Config

log = logging.getLogger("docbot.store")

STORE_FILE = "answers.sqlite3"


def sqlite_path(config: Config) -> Path:
    return config.state_dir / STORE_FILE


def database_url(config: Config, settings: Settings) -> str | None:
    if settings.database_url is not None:
        return settings.database_url.get_secret_value()
    return config.database_url


def open_store(config: Config, settings: Settings) -> AnswerStore:
    """The store this process answers with; a StoreError says why it cannot be opened."""
    url = database_url(config, settings)
    if url is None:
        return SQLiteAnswerStore(sqlite_path(config))
    from bot.store.postgres import PostgresAnswerStore  # only when asked for: see __init__

    store = PostgresAnswerStore(url)
    log.info("answer store: PostgreSQL at %s", store.where)
    return store
