"""The store contract's tests run against every backend: each test asks for `backend` (or the
`store` it opens) and runs once per entry of BACKENDS: SQLite in a temporary folder, and
PostgreSQL on the session's real server (tests/conftest.py; skipped when none can start), in a
database migrated once per worker and emptied per test (`postgres_store_url`): the tests of how
the schema is made take `postgres_url`, which starts on no tables."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.store import AnswerRecord, AnswerStore, PostgresAnswerStore, SQLiteAnswerStore
from grounding.answer import Answer, AnswerStatus, Claim, Omitted, Retrieved, Source, Usage
from retrieval.scopes import ConversationKind, Scope

BACKENDS = ("sqlite", "postgres")


class FakeClock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@dataclass
class Backend:
    """Opens stores on one backing database: a second `open` is a restart, or a second process."""

    name: str
    opener: Callable[..., AnswerStore]
    opened: list[AnswerStore] = field(default_factory=list)

    def open(self, clock: Callable[[], float], **options: Any) -> AnswerStore:
        store = self.opener(clock=clock, **options)
        self.opened.append(store)
        return store


def _sqlite(path: Path) -> Callable[..., AnswerStore]:
    def opener(**options: Any) -> AnswerStore:
        return SQLiteAnswerStore(path, **options)

    return opener


def _postgres(url: str) -> Callable[..., AnswerStore]:
    def opener(**options: Any) -> AnswerStore:
        return PostgresAnswerStore(url, **options)

    return opener


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    if request.param == "postgres":
        opener = _postgres(request.getfixturevalue("postgres_store_url"))
    else:
        opener = _sqlite(tmp_path / "state" / "answers.sqlite3")
    backend = Backend(request.param, opener)
    yield backend
    for store in backend.opened:
        store.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(backend: Backend, clock: FakeClock) -> AnswerStore:
    return backend.open(clock)


def answer(question: str = "how do I roll back?") -> Answer:
    return Answer(
        status=AnswerStatus.ANSWERED,
        question=question,
        scope=Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",)),
        claims=(Claim("Run `make rollback`.", (1,)),),
        sources=(
            Source(
                1,
                "handbook",
                "deploy.md",
                "Rollback",
                40,
                52,
                "https://x/deploy.md#L40",
                "chunk-a",
                "2026-10-02",
            ),
        ),
        retrieved=(Retrieved("chunk-a", "deploy.md", 7.25, "handbook"),),
        omitted=(Omitted("chunk-b", "budget"),),
        generator="extractive",
        usage=Usage(12, 3),
        timings_ms={"retrieve": 1.5},
    )


def record(reply_ts: str = "2.0", thread_ts: str = "1.0", question: str = "q?") -> AnswerRecord:
    return AnswerRecord(
        team="T1", channel="C1", thread_ts=thread_ts, reply_ts=reply_ts, question_ts=thread_ts,
        asker="U1", question=question, answer=answer(question),
        created="2026-10-03T10:00:00+00:00",
    )  # fmt: skip


def marked_wrong(store: AnswerStore, user: str = "U2", reply_ts: str = "2.0") -> int:
    """An answer in thread 1.0 that `user` marked wrong and was invited to explain."""
    answer_id = store.save_answer(record(reply_ts))
    store.add_feedback(answer_id, user, "wrong", "x", "2026-10-03T11:00:00+00:00")
    store.invite_reason(answer_id, user)
    return answer_id


def shared_question(
    backend: Backend, clock: FakeClock
) -> tuple[AnswerStore, AnswerStore, int, int, int]:
    """Two replicas on one database, and the ids of a private answer (reply 2.0 in thread 1.0),
    its copy shared in the channel (its own ts and thread, the same question: bot/share.py),
    and an answer to another question: (first, second, original, copy, other)."""
    first, second = backend.open(clock), backend.open(clock)
    private = record("2.0", thread_ts="1.0")
    original = first.save_answer(private)
    copy = second.save_answer(dataclasses.replace(private, reply_ts="5.0", thread_ts="5.0"))
    other = first.save_answer(record("7.0", thread_ts="6.0", question="another?"))
    return first, second, original, copy, other
