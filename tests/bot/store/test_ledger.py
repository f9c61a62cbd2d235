"""The event ledger: claims are leases. A live claim stops duplicates, a dead owner's claim is
taken over once its lease lapses, and a finished claim is final, also across restarts."""

from __future__ import annotations

import threading

from bot.store import EVENT_RETENTION_SECONDS, LEASE_SECONDS, AnswerStore, Claim, EventKey
from bot.store import MentionKey as Mention
from tests.bot.store.conftest import Backend, FakeClock

A, B = "101:aaaa", "202:bbbb"  # two processes (pid:token)
KEY = Mention("T1", "C1", "1.0")


def test_ledger_first_claim_is_new_and_a_live_claim_is_busy(store: AnswerStore) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    assert store.claim(KEY, B) is Claim.BUSY
    assert store.claim(KEY, A) is Claim.BUSY  # a redelivery to the owner itself is a duplicate


def test_ledger_keys_are_team_channel_and_ts_and_events_apart(store: AnswerStore) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    assert store.claim(Mention("T1", "C2", "1.0"), A) is Claim.NEW
    assert store.claim(Mention("T2", "C1", "1.0"), A) is Claim.NEW
    assert store.claim(EventKey("Ev1"), A) is Claim.NEW
    assert store.claim(EventKey("Ev1"), B) is Claim.BUSY


def test_ledger_finished_claim_is_final_across_restarts(
    backend: Backend, store: AnswerStore, clock: FakeClock
) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    store.finish(KEY, "2.0")
    clock.now += LEASE_SECONDS * 10
    assert store.claim(KEY, B) is Claim.DONE
    assert not store.renew(KEY, A) and not store.begin_post(KEY, A)
    store.release(KEY, A)
    again = backend.open(clock)  # a restart on the same database
    assert again.claim(KEY, B) is Claim.DONE


def test_ledger_dead_owner_is_taken_over_after_the_lease(
    store: AnswerStore, clock: FakeClock
) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    clock.now += LEASE_SECONDS - 1
    assert store.claim(KEY, B) is Claim.BUSY
    clock.now += 2  # A never renewed: it is gone
    assert store.claim(KEY, B) is Claim.TAKEN_OVER
    assert store.claim(KEY, A) is Claim.BUSY  # now B's
    assert not store.renew(KEY, A)
    assert not store.begin_post(KEY, A)  # A, back from a freeze, must not post
    assert store.begin_post(KEY, B)


def test_ledger_renewing_owner_is_never_taken_over(store: AnswerStore, clock: FakeClock) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    for _ in range(20):  # ten lease lengths of a slow answer
        clock.now += LEASE_SECONDS / 2
        assert store.renew(KEY, A)
        assert store.claim(KEY, B) is Claim.BUSY


def test_ledger_owner_that_began_posting_is_taken_over_unsure(
    store: AnswerStore, clock: FakeClock
) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    assert store.begin_post(KEY, A)
    clock.now += LEASE_SECONDS + 1
    assert store.claim(KEY, B) is Claim.UNSURE  # the reply may be out: look before answering
    store.finish(KEY, "2.0")  # B found it
    assert store.claim(KEY, A) is Claim.DONE


def test_ledger_released_claim_is_free_at_once(store: AnswerStore) -> None:
    assert store.claim(KEY, A) is Claim.NEW
    store.release(KEY, B)  # not B's to give up
    assert store.claim(KEY, B) is Claim.BUSY
    store.release(KEY, A)
    assert store.claim(KEY, B) is Claim.TAKEN_OVER
    assert store.begin_post(KEY, B)
    store.release(KEY, B)  # a failed post: the next run must look for the reply first
    assert store.claim(KEY, A) is Claim.UNSURE


def test_ledger_claim_is_atomic_across_threads(store: AnswerStore) -> None:
    results: list[Claim] = []
    barrier = threading.Barrier(8)

    def claim(n: int) -> None:
        barrier.wait()
        results.append(store.claim(EventKey("EvRace"), f"{n}:token"))

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == sorted([Claim.BUSY] * 7 + [Claim.NEW])


def test_ledger_claim_is_atomic_between_two_stores(backend: Backend, clock: FakeClock) -> None:
    """Two stores on one database stand in for two processes sharing it."""
    stores = [backend.open(clock), backend.open(clock)]
    results: list[Claim] = []
    barrier = threading.Barrier(8)

    def claim(n: int) -> None:
        barrier.wait()
        results.append(stores[n % 2].claim(EventKey("EvShared"), f"{n}:token"))

    threads = [threading.Thread(target=claim, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == sorted([Claim.BUSY] * 7 + [Claim.NEW])


def test_ledger_forgets_claims_after_retention(backend: Backend, clock: FakeClock) -> None:
    store = backend.open(clock)
    assert store.claim(EventKey("Ev1"), A) is Claim.NEW and store.claim(KEY, A) is Claim.NEW
    store.finish(EventKey("Ev1"))
    store.finish(KEY, "2.0")
    clock.now += 3600  # retried an hour later: still done
    assert store.claim(EventKey("Ev1"), B) is Claim.DONE and store.claim(KEY, B) is Claim.DONE
    clock.now += EVENT_RETENTION_SECONDS + 1
    assert store.claim(EventKey("Ev1"), B) is Claim.NEW
    assert store.claim(KEY, B) is Claim.NEW


def test_ledger_resumable_lists_lapsed_unfinished_mentions_with_their_payload(
    store: AnswerStore, clock: FakeClock
) -> None:
    dead, live, done, bare = (Mention("T1", "C1", f"{n}.0") for n in range(1, 5))
    assert store.claim(dead, A, '{"n": 1}') is Claim.NEW
    clock.now += 1
    assert store.claim(live, A, '{"n": 2}') is Claim.NEW
    assert store.claim(done, A, '{"n": 3}') is Claim.NEW
    store.finish(done, "9.0")
    assert store.claim(bare, A) is Claim.NEW  # no payload: nothing to resume from
    assert store.claim(EventKey("Ev1"), A) is Claim.NEW  # an event without one, likewise
    assert store.resumable(600, 10) == ()  # every lease is live
    clock.now += LEASE_SECONDS  # dead's lease lapsed; live's too, unless renewed:
    assert store.renew(live, A)
    assert [(r.key, r.payload) for r in store.resumable(600, 10)] == [(dead, '{"n": 1}')]
    store.release(live, A)  # given up unfinished: resumable at once, oldest first
    assert [r.key for r in store.resumable(600, 10)] == [dead, live]
    assert [r.key for r in store.resumable(600, 1)] == [dead]
    assert store.claim(dead, B) is Claim.TAKEN_OVER  # taken: no longer resumable
    assert [r.key for r in store.resumable(600, 10)] == [live]
    clock.now += 600
    assert store.resumable(600, 10) == ()  # first claimed too long ago: left alone


def test_ledger_an_event_claimed_with_its_delivery_is_resumable_after_its_owner_died(
    backend: Backend, store: AnswerStore, clock: FakeClock
) -> None:
    mention = Mention("T1", "C1", "1.0")
    assert store.claim(mention, A, '{"n": 1}') is Claim.NEW
    clock.now += 1
    assert store.claim(EventKey("Ev1"), A, '{"reaction": 1}') is Claim.NEW
    assert store.resumable(600, 10) == ()
    clock.now += LEASE_SECONDS
    again = backend.open(clock)  # a restart: the payload was stored with the claim
    found = again.resumable(600, 10)
    assert [(r.key, r.payload) for r in found] == [
        (mention, '{"n": 1}'),
        (EventKey("Ev1"), '{"reaction": 1}'),
    ]  # fmt: skip, oldest first
    assert again.claim(EventKey("Ev1"), B) is Claim.TAKEN_OVER
    again.finish(EventKey("Ev1"))
    assert [r.key for r in again.resumable(600, 10)] == [mention]


def test_ledger_deferred_claim_is_held_until_its_time_then_taken_over_as_it_was(
    store: AnswerStore, clock: FakeClock
) -> None:
    """A takeover Slack asked to wait (a Retry-After) defers: busy and not resumable until then,
    then lapsed, still UNSURE if its first owner began posting."""
    assert store.claim(KEY, A, "{}") is Claim.NEW
    assert store.begin_post(KEY, A)
    clock.now += LEASE_SECONDS + 1
    assert store.claim(KEY, B) is Claim.UNSURE
    assert not store.defer(KEY, A, 60, 900)  # not A's any more
    assert store.defer(KEY, B, 60, 900)
    clock.now += LEASE_SECONDS + 1  # past a lease: still held
    assert store.claim(KEY, A) is Claim.BUSY and store.resumable(900, 10) == ()
    clock.now += 60 - LEASE_SECONDS
    assert [r.key for r in store.resumable(900, 10)] == [KEY]
    assert store.claim(KEY, A) is Claim.UNSURE  # the reply may still be out: look again
    store.finish(KEY, "2.0")
    assert not store.defer(KEY, A, 60, 900)  # done is final
    assert store.claim(KEY, B) is Claim.DONE


def test_ledger_defer_refuses_to_end_past_its_window(store: AnswerStore, clock: FakeClock) -> None:
    assert store.claim(KEY, A, "{}") is Claim.NEW
    clock.now += 800
    assert store.renew(KEY, A)
    assert not store.defer(KEY, A, 101, 900)  # would lapse 901 s after the first claim
    assert store.claim(KEY, B) is Claim.BUSY  # unchanged: A's lease, renewed just now
    assert store.defer(KEY, A, 100, 900)  # lapses exactly at the window's end
    clock.now += 100
    assert store.claim(KEY, B) is Claim.TAKEN_OVER


def test_ledger_a_claim_whose_run_began_posting_has_a_window_of_its_own(
    store: AnswerStore, clock: FakeClock
) -> None:
    """A question whose run began posting may have its reply in the thread: it is deferred, and
    resumed, within the longer window it is given (`unsure_*`); one whose run never began
    posting keeps the resume window."""
    posting, claimed = Mention("T1", "C1", "1.0"), Mention("T1", "C1", "2.0")
    assert store.claim(posting, A, "{}") is Claim.NEW and store.begin_post(posting, A)
    assert store.claim(claimed, A, "{}") is Claim.NEW
    clock.now += 800
    assert store.renew(posting, A) and store.renew(claimed, A)
    assert not store.defer(claimed, A, 200, 900, 3600)  # 1000 s after its first claim
    assert not store.defer(posting, A, 2801, 900, 3600)  # would lapse past 3600 s
    assert store.defer(posting, A, 300, 900, 3600)
    clock.now += 200  # 1000 s: past the resume window of 900
    assert store.resumable(900, 10, 3600) == ()  # claimed: too old; posting: deferred
    clock.now += 100
    assert [r.key for r in store.resumable(900, 10, 3600)] == [posting]
    assert store.resumable(900, 10) == ()  # without its own window: the resume window's
    clock.now += 3600
    assert store.resumable(900, 10, 3600) == ()  # past its window too: left alone
