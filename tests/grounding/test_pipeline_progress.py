"""AnswerPipeline.answer_live(): the stages it reports, in order, and only ones that happened."""

from __future__ import annotations

import asyncio

from grounding.evidence import PackPolicy
from grounding.pipeline import AnswerPipeline
from grounding.progress import AnswerEvent, Checking, Reading, Searching
from retrieval.chunks import Chunk
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fakes import (
    FakeRetriever,
    RecordingGenerator,
    WordCounter,
    make_chunk,
    make_scope,
    response,
)

ROTATE = make_chunk(
    "Rotate the payments API key every 90 days with the rotate-key job.",
    collection="payments",
    path="keys.md",
    start_line=12,
)
GOOD = response(("Rotate the payments API key every 90 days.", ["E1"]), ("Unrelated.", ["E1"]))


def _url(chunk: Chunk) -> str:
    return f"https://git.example/{chunk.path}"


def _events(question: str, scope: Scope) -> list[AnswerEvent]:
    pipeline = AnswerPipeline(
        FakeRetriever((ROTATE,)), RecordingGenerator([GOOD]), WordCounter(), PackPolicy(), _url
    )
    seen: list[AnswerEvent] = []
    asyncio.run(pipeline.answer_live(question, scope, report=seen.append))
    return seen


def test_answer_live_reports_search_read_and_check_in_order() -> None:
    seen = _events("how often do we rotate the payments key?", make_scope("handbook", "payments"))
    assert seen == [Searching(("handbook", "payments")), Reading(1), Checking(2)]


def test_answer_live_reports_only_the_search_when_nothing_is_found() -> None:
    assert _events("lunch menu", make_scope("payments")) == [Searching(("payments",))]


def test_answer_live_reports_nothing_for_a_refused_scope() -> None:
    empty = Scope("T1", "C1", ConversationKind.CHANNEL, ())
    assert _events("how often do we rotate the payments key?", empty) == []
