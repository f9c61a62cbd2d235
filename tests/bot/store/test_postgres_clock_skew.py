"""Replicas read leases by their own clocks: one whose clock runs ahead writes leases that run
out, by the others' clocks, later than a whole lease from now. The replica that meets such a
lease says so, naming the bound (half a lease), rather than failing silently. PostgreSQL."""

from __future__ import annotations

import logging

import pytest

from bot.store import LEASE_SECONDS, Claim, MentionKey, PostgresAnswerStore
from tests.bot.store.conftest import FakeClock

KEY = MentionKey("T1", "C1", "1.0")


def test_postgres_a_lease_from_a_clock_ahead_is_logged(
    postgres_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    behind = FakeClock()
    ahead = FakeClock(behind.now + 60)
    first = PostgresAnswerStore(postgres_url, clock=ahead)
    second = PostgresAnswerStore(postgres_url, clock=behind)
    try:
        assert first.claim(KEY, "ahead:1") is Claim.NEW
        with caplog.at_level(logging.WARNING, logger="docbot.store"):
            assert second.claim(KEY, "behind:1") is Claim.BUSY
        (said,) = [r.getMessage() for r in caplog.records if "clock" in r.getMessage()]
        assert "about 60 s ahead" in said and f"({LEASE_SECONDS / 2:.0f} s)" in said
        caplog.clear()
        other = MentionKey("T1", "C1", "2.0")
        assert second.claim(other, "behind:1") is Claim.NEW
        behind.now += 1  # a lease written by an agreeing clock is not reported
        with caplog.at_level(logging.WARNING, logger="docbot.store"):
            assert second.claim(other, "behind:2") is Claim.BUSY
        assert [r for r in caplog.records if "clock" in r.getMessage()] == []
    finally:
        first.close()
        second.close()
