"""`ping`, what /readyz asks every backend: returns while the store answers, StoreError after."""

from __future__ import annotations

import pytest

from bot.store import StoreError
from tests.bot.store.conftest import Backend, FakeClock


def test_store_ping_answers_while_open_and_raises_a_store_error_once_closed(
    backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)
    store.ping()
    store.close()
    with pytest.raises(StoreError):
        store.ping()
