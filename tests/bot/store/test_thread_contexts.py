"""Which channel an assistant thread is looking at, on every backend: the latest event by Slack's
time wins even when an earlier one arrives after it, and every process sees the same."""

from __future__ import annotations

from bot.store.contract import THREAD_CONTEXT_RETENTION_SECONDS
from tests.bot.store.conftest import Backend, FakeClock


def test_thread_context_follows_the_latest_event_across_processes(
    backend: Backend, clock: FakeClock
) -> None:
    first, second = backend.open(clock), backend.open(clock)  # two replicas, one database
    assert first.thread_context("T1", "D1", "60.000100") is None
    first.set_thread_context("T1", "D1", "60.000100", "C1", 60.0001)
    assert second.thread_context("T1", "D1", "60.000100") == "C1"
    second.set_thread_context("T1", "D1", "60.000100", "C2", 75.5)
    first.set_thread_context("T1", "D1", "60.000100", "C3", 70.0)  # older, delivered late
    assert first.thread_context("T1", "D1", "60.000100") == "C2"
    first.set_thread_context("T1", "D1", "60.000100", "", 80.0)  # now at no channel
    assert second.thread_context("T1", "D1", "60.000100") == ""
    assert first.thread_context("T1", "D1", "61.000100") is None  # another thread
    assert first.thread_context("T2", "D1", "60.000100") is None  # another team


def test_thread_contexts_untold_for_long_are_pruned(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(clock)
    store.set_thread_context("T1", "D1", "60.000100", "C1", clock.now)
    store.set_thread_context("T1", "D1", "61.000100", "C1", clock.now + 10.0)
    clock.now += THREAD_CONTEXT_RETENTION_SECONDS + 5.0
    later = backend.open(clock)  # a process starting prunes at once
    assert later.thread_context("T1", "D1", "60.000100") is None  # back to the DM's scope
    assert later.thread_context("T1", "D1", "61.000100") == "C1"
