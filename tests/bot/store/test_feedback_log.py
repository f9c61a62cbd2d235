"""The feedback log: reactions on answers, the reasons given, and the invitations to give one."""

from __future__ import annotations

import pytest

from bot.store import REASON_WINDOW_SECONDS, AnswerStore, Claim, EventKey, StoreError, Toggled
from bot.store.reaction_order import event_order
from tests.bot.store.conftest import Backend, FakeClock, marked_wrong, record


def test_feedback_is_idempotent_and_retractable(store: AnswerStore) -> None:
    answer_id = store.save_answer(record())
    assert store.add_feedback(answer_id, "U2", "wrong", "x", "t1") is True
    assert store.add_feedback(answer_id, "U2", "wrong", "x", "t2") is False
    assert store.add_feedback(answer_id, "U2", "wrong", "-1", "t3") is True
    assert store.add_feedback(answer_id, "U3", "wrong", "x", "t4") is True
    assert store.add_feedback(answer_id, "U4", "helpful", "tada", "t5") is True
    assert store.wrong_count(answer_id) == 2  # U2's two emoji are one person
    assert store.remove_feedback(answer_id, "U3", "x") is True
    assert store.remove_feedback(answer_id, "U3", "x") is False
    assert store.wrong_count(answer_id) == 1
    assert store.remove_feedback(answer_id, "U2", "x") and store.remove_feedback(
        answer_id, "U2", "-1"
    )
    assert store.wrong_count(answer_id) == 0


def test_feedback_entries_join_answer_and_reasons(store: AnswerStore) -> None:
    first = store.save_answer(record("2.0", question="first?"))
    second = store.save_answer(record("3.0", question="second?"))
    store.add_feedback(first, "U2", "wrong", "x", "2026-10-03T11:00:00")
    store.add_feedback(second, "U3", "helpful", "white_check_mark", "2026-10-03T12:00:00")
    store.add_reason(first, "U2", "the command was renamed", "2026-10-03T11:01:00")
    store.add_reason(first, "U9", "someone else's reason", "2026-10-03T11:02:00")

    everything = store.feedback_entries(wrong_only=False)
    assert [(e.answer_id, e.kind, e.user) for e in everything] == [
        (first, "wrong", "U2"), (second, "helpful", "U3"),
    ]  # fmt: skip
    wrong = store.feedback_entries(wrong_only=True)
    assert len(wrong) == 1
    entry = wrong[0]
    assert entry.record.question == "first?" and entry.emoji == "x"
    assert entry.record.answer.claims[0].text == "Run `make rollback`."
    assert [(r.user, r.text) for r in entry.reasons] == [("U2", "the command was renamed")]


def test_feedback_pending_reason_survives_a_restart_until_given(
    backend: Backend, clock: FakeClock
) -> None:
    first = backend.open(clock)
    answer_id = marked_wrong(first)
    assert first.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    first.close()

    again = backend.open(clock)  # a restart: a new store on the same database
    assert again.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    for other in (("T1", "C1", "1.0", "U3"), ("T1", "C1", "9.0", "U2"),
                  ("T1", "C2", "1.0", "U2"), ("T2", "C1", "1.0", "U2")):  # fmt: skip
        assert again.pending_reason(*other) is None
    again.add_reason(answer_id, "U2", "the command was renamed", "2026-10-03T11:05:00+00:00")
    assert again.pending_reason("T1", "C1", "1.0", "U2") is None  # the next reply is a question
    again.close()

    last = backend.open(clock)
    assert last.pending_reason("T1", "C1", "1.0", "U2") is None
    (entry,) = last.feedback_entries(wrong_only=True)
    assert [r.text for r in entry.reasons] == ["the command was renamed"]
    last.close()


def test_feedback_pending_reason_lapses_after_the_window(
    store: AnswerStore, clock: FakeClock
) -> None:
    answer_id = marked_wrong(store)
    clock.now += REASON_WINDOW_SECONDS - 1
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id
    clock.now += 2
    assert store.pending_reason("T1", "C1", "1.0", "U2") is None


def test_feedback_pending_reason_is_the_latest_unexplained_answer(
    store: AnswerStore, clock: FakeClock
) -> None:
    first = marked_wrong(store, reply_ts="2.0")
    clock.now += 60
    second = marked_wrong(store, reply_ts="3.0")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == second
    store.add_reason(second, "U2", "outdated", "2026-10-03T11:05:00+00:00")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == first
    clock.now += 60
    store.invite_reason(first, "U3")  # another person's invitation is theirs alone
    assert store.pending_reason("T1", "C1", "1.0", "U2") == first
    store.close()


def test_feedback_retracting_the_last_wrong_mark_withdraws_the_invitation(
    store: AnswerStore,
) -> None:
    answer_id = marked_wrong(store)
    store.add_feedback(answer_id, "U2", "wrong", "-1", "t")
    store.add_feedback(answer_id, "U2", "helpful", "tada", "t")
    assert store.add_feedback(answer_id, "U3", "wrong", "x", "t")
    store.remove_feedback(answer_id, "U2", "x")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id  # :-1: still says wrong
    store.remove_feedback(answer_id, "U2", "-1")
    assert store.pending_reason("T1", "C1", "1.0", "U2") is None  # despite U3's mark
    store.add_feedback(answer_id, "U2", "wrong", "x", "t")  # marked again: invited again
    store.invite_reason(answer_id, "U2")
    assert store.pending_reason("T1", "C1", "1.0", "U2") == answer_id


def test_feedback_invite_reason_needs_a_stored_answer(store: AnswerStore) -> None:
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.invite_reason(999, "U2")


def test_feedback_rejects_unknown_kind_and_answer(store: AnswerStore) -> None:
    answer_id = store.save_answer(record())
    with pytest.raises(StoreError, match="kind 'meh'"):
        store.add_feedback(answer_id, "U2", "meh", "x", "t")
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.add_feedback(999, "U2", "wrong", "x", "t")
    with pytest.raises(StoreError, match="no answer with id 999"):
        store.add_reason(999, "U2", "why", "t")


def test_feedback_button_mark_is_one_per_person_toggles_and_keeps_reactions(
    store: AnswerStore,
) -> None:
    answer_id = store.save_answer(record())
    assert store.toggle_mark(answer_id, "U2", "helpful", "t1").mark == "helpful"
    assert store.toggle_mark(answer_id, "U2", "wrong", "t2").mark == "wrong"  # replaces, not adds
    assert store.add_feedback(answer_id, "U2", "wrong", "x", "t3") is True  # a reaction beside it
    marks = [(e.source, e.kind, e.emoji) for e in store.feedback_entries(wrong_only=False)]
    assert marks == [("button", "wrong", ""), ("reaction", "wrong", "x")]
    assert store.wrong_count(answer_id) == 1  # one person
    assert store.toggle_mark(answer_id, "U2", "wrong", "t4").mark is None  # again: taken back
    assert [e.source for e in store.feedback_entries(wrong_only=False)] == ["reaction"]
    with pytest.raises(StoreError):
        store.toggle_mark(answer_id, "U2", "meh", "t5")
    with pytest.raises(StoreError):
        store.toggle_mark(answer_id + 99, "U2", "wrong", "t5")


def test_feedback_reason_keeps_its_source_and_category(store: AnswerStore) -> None:
    answer_id = marked_wrong(store)
    store.add_reason(answer_id, "U2", "", "t1", source="modal", category="wrong_channel")
    (entry,) = store.feedback_entries(wrong_only=True)
    assert [(r.source, r.category, r.text) for r in entry.reasons] == [
        ("modal", "wrong_channel", "")
    ]
    with pytest.raises(StoreError):
        store.add_reason(answer_id, "U2", "x", "t2", source="email")
    with pytest.raises(StoreError):
        store.add_reason(answer_id, "U2", "x", "t2", source="modal", category="rude")


def test_escalation_is_claimed_once_per_answer_until_released(
    backend: Backend, clock: FakeClock
) -> None:
    first, second = backend.open(clock), backend.open(clock)  # two processes, one database
    answer_id = first.save_answer(record())
    assert first.claim_escalation(answer_id, "U2", "t1") is True
    assert second.claim_escalation(answer_id, "U3", "t2") is False
    assert first.claim_escalation(answer_id, "U2", "t3") is False
    second.release_escalation(answer_id)  # the note could not be posted
    assert second.claim_escalation(answer_id, "U3", "t4") is True
    with pytest.raises(StoreError):
        first.claim_escalation(answer_id + 99, "U2", "t5")
    first.close()
    second.close()


def test_feedback_a_press_or_a_reason_given_once_is_applied_once(store: AnswerStore) -> None:
    answer_id = store.save_answer(record())
    store.add_feedback(answer_id, "U2", "wrong", "x", "t0")  # the entry the reasons join
    press, other = EventKey("press:1"), EventKey("press:2")
    assert store.toggle_mark(answer_id, "U2", "wrong", "t1", once=press) == Toggled("wrong")
    # The same press delivered again changes nothing (a second press would take it back), and
    # says it was a repeat, for the app not to count it or answer it again.
    assert store.toggle_mark(answer_id, "U2", "wrong", "t1", once=press) == Toggled("wrong", True)
    assert store.claim(press, "101:aaaa") is Claim.DONE  # the ledger holds it, done
    assert store.toggle_mark(answer_id, "U2", "wrong", "t2", once=other) == Toggled(None)
    assert store.toggle_mark(answer_id, "U2", "wrong", "t2", once=other) == Toggled(None, True)
    reason = EventKey("reason:V1")
    assert store.add_reason(answer_id, "U2", "old", "t3", source="modal", category="outdated",
                            once=reason) is True  # fmt: skip
    assert store.add_reason(answer_id, "U2", "old", "t3", source="modal", category="outdated",
                            once=reason) is False  # fmt: skip
    assert store.add_reason(answer_id, "U2", "no key", "t4") is True
    (entry,) = store.feedback_entries(wrong_only=False)
    assert [r.text for r in entry.reasons] == ["old", "no key"]


def test_feedback_a_reaction_counts_in_its_events_order_across_processes(
    backend: Backend, clock: FakeClock
) -> None:
    first, second = backend.open(clock), backend.open(clock)  # two processes, one database
    answer_id = first.save_answer(record())
    # U2 adds :x: (10 s) and removes it (20 s); the removal is resolved first, by another
    # process, and finds nothing; the mark resolved after it changes nothing.
    assert second.remove_feedback(answer_id, "U2", "x", event_ts="1700000020.000100") is False
    assert first.add_feedback(answer_id, "U2", "wrong", "x", "t1",
                              event_ts="1700000010.000100") is False  # fmt: skip
    assert not first.has_feedback(answer_id, "U2", "x") and first.wrong_count(answer_id) == 0
    # Added again later, it counts; a removal older than that, resolved late, takes nothing back.
    assert first.add_feedback(answer_id, "U2", "wrong", "x", "t2",
                              event_ts="1700000030.000000") is True  # fmt: skip
    assert second.remove_feedback(answer_id, "U2", "x", event_ts="1700000029.999999") is False
    assert second.has_feedback(answer_id, "U2", "x")
    # Two events of one time cannot be ordered: both apply, as resolved.
    assert second.remove_feedback(answer_id, "U2", "x", event_ts="1700000030.000000") is True
    assert first.add_feedback(answer_id, "U2", "wrong", "x", "t2",
                              event_ts="1700000030.000000") is True  # fmt: skip
    # Another emoji, or another person, is another reaction; an event without a time (a claim
    # written by an older docbot) is not ordered.
    assert second.add_feedback(answer_id, "U2", "wrong", "-1", "t3",
                               event_ts="1700000015.000000") is True  # fmt: skip
    assert second.remove_feedback(answer_id, "U2", "x") is True
    assert [e.emoji for e in first.feedback_entries(wrong_only=True)] == ["-1"]


def test_reaction_order_reads_slacks_event_time_exactly() -> None:
    assert event_order("1610241741.000500") == 1610241741_000500
    assert event_order("1610241741.5") == 1610241741_500000
    assert event_order("1610241741") == 1610241741_000000
    assert event_order("1610241741.000501") > event_order("1610241741.000500")  # type: ignore[operator]
    assert event_order("") is None and event_order("soon") is None and event_order("1.x") is None
