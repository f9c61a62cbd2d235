"""An answer staged before its reply is posted, then marked posted (contract.stage_answer,
mark_posted): a run killed between the post and the mark leaves the answer for the run that
takes its question over to mark, so feedback on the reply always finds it. Every backend."""

from __future__ import annotations

import pytest

from bot.store import AnswerStore, StoreError, staged_reply_ts
from tests.bot.store.conftest import Backend, FakeClock, answer, record


def test_staging_a_staged_answer_is_not_a_reply_until_marked_posted(store: AnswerStore) -> None:
    answer_id = store.stage_answer(record(staged_reply_ts("1.0"), "1.0"))
    assert store.posted_answer("T1", "C1", "1.0") is None
    assert store.mark_posted("T1", "C1", "1.0", "2.0") is True
    found = store.find_answer("T1", "C1", "2.0")
    assert found is not None and found.id == answer_id and found.answer == answer("q?")
    posted = store.posted_answer("T1", "C1", "1.0")
    assert posted is not None and posted.id == answer_id
    assert store.mark_posted("T1", "C1", "1.0", "2.0") is False  # marked already


def test_staging_again_replaces_the_unposted_answer_and_keeps_its_id(store: AnswerStore) -> None:
    """The run taking over a question answers it again: one row, the newer answer."""
    first = store.stage_answer(record(staged_reply_ts("1.0"), "1.0", "first try?"))
    again = store.stage_answer(record(staged_reply_ts("1.0"), "1.0", "second try?"))
    assert again == first
    assert store.mark_posted("T1", "C1", "1.0", "2.0") is True
    found = store.find_answer("T1", "C1", "2.0")
    assert found is not None and found.question == "second try?"
    assert found.answer == answer("second try?")
    assert store.thread_questions("T1", "C1", "1.0") == ("second try?",)


def test_staging_across_replicas_one_row(backend: Backend, clock: FakeClock) -> None:
    first, second = backend.open(clock), backend.open(clock)
    staged = record(staged_reply_ts("1.0"), "1.0")
    assert first.stage_answer(staged) == second.stage_answer(staged)
    assert second.mark_posted("T1", "C1", "1.0", "2.0") is True
    assert first.mark_posted("T1", "C1", "1.0", "2.0") is False


def test_staging_needs_the_questions_marker(store: AnswerStore) -> None:
    with pytest.raises(StoreError, match=r"unposted:1\.0"):
        store.stage_answer(record("2.0", "1.0"))


def test_staging_mark_posted_does_not_clash_with_a_stored_reply(store: AnswerStore) -> None:
    """A reply stored under its own ts already (a shared copy, an older docbot's save) is not
    overwritten, and the staged answer stays unposted rather than failing."""
    store.save_answer(record("2.0", "1.0", "saved?"))
    store.stage_answer(record(staged_reply_ts("1.0"), "1.0", "staged?"))
    assert store.mark_posted("T1", "C1", "1.0", "2.0") is False
    found = store.find_answer("T1", "C1", "2.0")
    assert found is not None and found.question == "saved?"


def test_staging_mark_posted_without_a_staged_answer_is_false(store: AnswerStore) -> None:
    assert store.mark_posted("T1", "C1", "1.0", "2.0") is False
    assert store.find_answer("T1", "C1", "2.0") is None
