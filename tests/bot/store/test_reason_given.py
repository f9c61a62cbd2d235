"""reason_given: a thread reply's reason that is already stored is found by its thread, author and
text (a run taking the reply over must not answer it as a question); on every backend."""

from __future__ import annotations

from tests.bot.store.conftest import Backend, FakeClock, marked_wrong


def test_a_stored_thread_reason_is_found_by_thread_author_and_text(
    backend: Backend, clock: FakeClock
) -> None:
    store = backend.open(clock)
    answer_id = marked_wrong(store, "U2")
    assert store.reason_given("T1", "C1", "1.0", "U2", "step 3 is gone") is None
    store.add_reason(answer_id, "U2", "step 3 is gone", "2026-10-03T11:05:00+00:00")
    assert store.reason_given("T1", "C1", "1.0", "U2", "step 3 is gone") == answer_id
    assert store.reason_given("T1", "C1", "1.0", "U3", "step 3 is gone") is None  # not theirs
    assert store.reason_given("T1", "C1", "9.0", "U2", "step 3 is gone") is None  # elsewhere
    assert store.reason_given("T1", "C1", "1.0", "U2", "something else") is None
    store.add_reason(answer_id, "U2", "from the form", "t", source="modal", category="wrong")
    assert store.reason_given("T1", "C1", "1.0", "U2", "from the form") is None  # not a reply
