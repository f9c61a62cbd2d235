"""An escalation whose note may or may not have been posted (Slack's answer lost, the thread
unreadable): its claim is kept but marked unsure, and exactly one later press, on any copy of the
answer and in any process, takes it to look for the note; on every backend."""

from __future__ import annotations

from tests.bot.store.conftest import Backend, FakeClock, record, shared_question
from tests.bot.store.escalation_checks import rechecks_at_once


def test_a_doubted_escalation_stays_claimed_and_is_rechecked_once(
    backend: Backend, clock: FakeClock
) -> None:
    first, second, original, copy, other = shared_question(backend, clock)
    assert first.recheck_escalation(original) is None  # nothing claimed yet
    assert first.claim_escalation(original, "U2", "t1") is True
    assert second.recheck_escalation(copy) is None  # claimed, and sure
    first.doubt_escalation(original)
    assert second.claim_escalation(copy, "U3", "t2") is False  # still claimed
    assert first.recheck_escalation(other) is None  # another question's claim is untouched
    taken = second.recheck_escalation(copy)  # through the other copy
    assert taken is not None and (taken.id, taken.reply_ts, taken.thread_ts) == (
        original, "2.0", "1.0",
    )  # fmt: skip
    assert first.recheck_escalation(original) is None  # taken once
    assert first.claim_escalation(original, "U2", "t3") is False
    second.doubt_escalation(copy)  # looked, and still could not tell
    assert first.recheck_escalation(original) is not None
    first.release_escalation(original)  # looked, and the note was not there
    assert second.claim_escalation(copy, "U3", "t4") is True


def test_concurrent_rechecks_take_a_doubted_escalation_once(
    backend: Backend, clock: FakeClock
) -> None:
    stores = [backend.open(clock) for _ in range(4)]
    answer_id = stores[0].save_answer(record())
    assert stores[0].claim_escalation(answer_id, "U2", "t1") is True
    stores[0].doubt_escalation(answer_id)
    assert sorted(rechecks_at_once(stores, answer_id)) == [False, False, False, True]
