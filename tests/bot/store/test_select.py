"""Which store a process opens: PostgreSQL when DOCBOT_DATABASE_URL or docbot.yml's
`database_url` names one (the environment wins), else SQLite in state_dir; a bad URL is refused
with what to write, and never repeated back, since it may hold a password."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import Settings, SettingsError
from bot.store import PostgresAnswerStore, SQLiteAnswerStore
from bot.store.select import open_store, sqlite_path
from retrieval.config import Config, load_config
from retrieval.errors import ConfigError
from tests.bot.conftest import write_config


def _config(tmp_path: Path, database_url: str | None = None) -> Config:
    path = write_config(tmp_path)
    if database_url is not None:
        with path.open("a", encoding="utf-8") as file:
            file.write(f"database_url: {database_url!r}\n")
    return load_config(path)


def test_select_without_a_database_url_is_sqlite_in_state_dir(tmp_path: Path) -> None:
    config = _config(tmp_path)
    store = open_store(config, Settings.from_env({}))
    try:
        assert isinstance(store, SQLiteAnswerStore)
        assert store.path == sqlite_path(config) == config.state_dir / "answers.sqlite3"
    finally:
        store.close()


def test_select_database_url_in_docbot_yml_opens_postgres(
    tmp_path: Path, postgres_url: str
) -> None:
    store = open_store(_config(tmp_path, postgres_url), Settings.from_env({}))
    try:
        assert isinstance(store, PostgresAnswerStore)
        assert not sqlite_path(_config(tmp_path)).exists()
    finally:
        store.close()


def test_select_environment_wins_over_docbot_yml(tmp_path: Path, postgres_url: str) -> None:
    config = _config(tmp_path, "postgresql://nobody@127.0.0.1:1/never")
    store = open_store(config, Settings.from_env({"DOCBOT_DATABASE_URL": postgres_url}))
    try:
        assert isinstance(store, PostgresAnswerStore)
        assert store.where.endswith(postgres_url.rsplit("@", 1)[1])
    finally:
        store.close()


def test_select_environment_url_must_be_postgres_and_is_not_echoed() -> None:
    with pytest.raises(SettingsError, match="DOCBOT_DATABASE_URL: is not a PostgreSQL URL") as info:
        Settings.from_env({"DOCBOT_DATABASE_URL": "mysql://root:hunter2@db/docbot"})
    assert "hunter2" not in str(info.value)
    settings = Settings.from_env({"DOCBOT_DATABASE_URL": "postgresql://u:hunter2@db/docbot"})
    assert "hunter2" not in repr(settings)


def test_select_docbot_yml_url_must_be_postgres_and_is_not_echoed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="database_url: must be a PostgreSQL URL") as info:
        _config(tmp_path, "sqlite://root:hunter2@x/answers")
    assert "hunter2" not in str(info.value)
