"""The index builders' advisory lock in PostgreSQL: a second `docbot index` on another machine
(here: another connection) says it waits, and does, until the first is done."""

from __future__ import annotations

import threading

import pytest

from bot.store import StoreError
from bot.store.postgres_lock import build_lock


def test_build_lock_lets_one_builder_at_a_time(postgres_url: str) -> None:
    told, inside = threading.Event(), threading.Event()
    said: list[str] = []

    def second() -> None:
        def waiting(why: str) -> None:
            said.append(why)
            told.set()

        with build_lock(postgres_url, waiting):
            inside.set()

    with build_lock(postgres_url):
        thread = threading.Thread(target=second)
        thread.start()
        assert told.wait(10)  # the second builder says it waits ...
        assert not inside.is_set()  # ... and does, while the first holds the lock
    thread.join(10)
    assert inside.is_set()
    assert "waiting for another docbot index, which holds the lock in postgresql://" in said[0]


def test_build_lock_without_a_server_says_what_to_check() -> None:
    url = "postgresql://docbot:secret-pw@127.0.0.1:1/docbot"
    refused = pytest.raises(StoreError, match="cannot take the index builders' lock")
    with refused as info, build_lock(url):
        pass
    assert "secret-pw" not in str(info.value)
