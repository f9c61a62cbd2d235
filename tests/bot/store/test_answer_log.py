"""The answer log: every reply docbot posted, found again by its reply or its question."""

from __future__ import annotations

import dataclasses

import pytest

from bot.store import AnswerStore, StoreError
from tests.bot.store.conftest import answer, record


def test_answers_save_and_find_answer_round_trip(store: AnswerStore) -> None:
    saved = record()
    answer_id = store.save_answer(saved)
    found = store.find_answer("T1", "C1", "2.0")
    assert found is not None
    assert found.id == answer_id
    assert found.answer == answer("q?")
    assert found.answer.retrieved[0].score == 7.25
    assert found.answer.sources[0].chunk_id == "chunk-a"
    assert (found.team, found.asker, found.question, found.created) == (
        "T1", "U1", "q?", saved.created,
    )  # fmt: skip
    assert store.find_answer("T1", "C1", "9.9") is None
    assert store.find_answer("T2", "C1", "2.0") is None


def test_answers_save_answer_twice_for_one_reply_is_an_error(store: AnswerStore) -> None:
    store.save_answer(record())
    with pytest.raises(StoreError, match="already stored"):
        store.save_answer(record())


def test_answers_thread_questions_oldest_first_and_per_thread(store: AnswerStore) -> None:
    store.save_answer(record("2.0", "1.0", "first?"))
    store.save_answer(record("3.0", "1.0", "second?"))
    store.save_answer(record("5.0", "4.0", "other thread?"))
    assert store.thread_questions("T1", "C1", "1.0") == ("first?", "second?")
    assert store.thread_questions("T1", "C2", "1.0") == ()


def test_answers_posted_answer_finds_the_reply_to_a_question_not_an_unposted_one(
    store: AnswerStore,
) -> None:
    store.save_answer(record("unposted:1.0", "1.0"))
    assert store.posted_answer("T1", "C1", "1.0") is None  # the post failed: not an answer
    store.save_answer(record("2.0", "1.0"))
    found = store.posted_answer("T1", "C1", "1.0")
    assert found is not None and found.reply_ts == "2.0"
    assert store.posted_answer("T1", "C2", "1.0") is None
    assert store.posted_answer("T1", "C1", "2.0") is None


def test_answers_recent_answers_are_the_askers_own_newest_first(store: AnswerStore) -> None:
    for n in range(1, 5):
        store.save_answer(record(f"{n}.5", question=f"question {n}?"))
    other = dataclasses.replace(record("9.5", question="someone else's?"), asker="U9")
    elsewhere = dataclasses.replace(record("8.5", question="other team?"), team="T2")
    store.save_answer(other)
    store.save_answer(elsewhere)
    recent = store.recent_answers("T1", "U1", 3)
    assert [r.question for r in recent] == ["question 4?", "question 3?", "question 2?"]
    assert store.recent_answers("T1", "U7", 3) == ()
