"""Query rewriting in the answer pipeline: searched in the same scope, fused, never in the way.

Through the real openai client: the fake server answers the rewrite call, then the answer call.
"""

from __future__ import annotations

import logging

import pytest

from grounding.answer import AnswerStatus
from grounding.generators.openai_gen import strict_schema
from grounding.rewrite import SearchQueries
from grounding.strict_schema import strict_schema_problems
from tests.grounding.fake_clock import FakeClock
from tests.grounding.fake_openai import answer, hang, http_error, raw_text
from tests.grounding.fakes import FakeRetriever, make_chunk, make_scope
from tests.grounding.openai_harness import API, APIS, user_texts
from tests.grounding.rewrite_harness import ask_rewritten, is_rewrite, queries

TIMEOUT = make_chunk(
    "Timeouts default to five seconds.", collection="httpx", path="timeouts.md", start_line=4
)
POOL = make_chunk(
    "The connection pool keeps at most 20 keep-alive connections.",
    collection="httpx",
    path="pool.md",
    start_line=9,
)
SECRET = make_chunk(
    "The payments signing key rotates every 90 days.", collection="payments", path="keys.md"
)
SCOPE = make_scope("httpx")
SPANISH = "¿cuáles son los timeouts por defecto?"
GOOD = answer([("Timeouts default to five seconds.", ["E1"])])


def _retriever() -> FakeRetriever:
    return FakeRetriever([TIMEOUT, POOL, SECRET])


@pytest.mark.parametrize("api", APIS)
def test_rewrite_searches_the_queries_and_answers_the_original_question(api: API) -> None:
    retriever = _retriever()
    result, fake = ask_rewritten(
        api, retriever, SPANISH, SCOPE, queries("What is the default timeout?"), GOOD
    )
    assert result.status is AnswerStatus.ANSWERED
    assert [is_rewrite(r) for r in fake.requests] == [True, False]
    # The question as asked, then the rewrite: both searched.
    assert retriever.queries == [SPANISH, "What is the default timeout?"]
    assert result.retrieved[0].chunk_id == TIMEOUT.chunk_id
    # Kept with the answer for admins: what was searched besides the question.
    assert result.to_dict()["rewrites"] == ["What is the default timeout?"]
    # Evidence is packed and the answer verified for the ORIGINAL question.
    assert result.question == SPANISH
    assert any(SPANISH in text for text in user_texts(api, fake.requests[1].body))
    assert not any("What is the default" in t for t in user_texts(api, fake.requests[1].body))


def test_rewrite_tokens_and_time_are_in_usage_and_timings() -> None:
    result, fake = ask_rewritten(
        "chat", _retriever(), SPANISH, SCOPE, queries("default timeout"), GOOD
    )
    spent = [r.usage for r in fake.requests]
    assert result.usage.input_tokens == sum(u[0] for u in spent)
    assert result.usage.output_tokens == sum(u[1] for u in spent)
    assert result.timings_ms["rewrite"] > 0


def test_rewrite_never_widens_the_scope() -> None:
    # The rewrite asks for another channel's collection by its words; every search stays in the
    # question's scope, so the payments chunk is never scored, packed or cited.
    retriever = _retriever()
    result, fake = ask_rewritten(
        "chat",
        retriever,
        SPANISH,
        SCOPE,
        queries("payments signing key rotates every 90 days", "timeout"),
        GOOD,
    )
    assert retriever.scopes == [SCOPE, SCOPE, SCOPE]
    assert all(r.collection == "httpx" for r in result.retrieved)
    assert "90 days" not in str(fake.requests[1].body)


def test_rewrite_of_a_thread_follow_up_sees_the_earlier_questions() -> None:
    retriever = _retriever()
    earlier = ["how many keep-alive connections does the pool keep?"]
    result, fake = ask_rewritten(
        "chat",
        retriever,
        "and what is the default timeout?",
        SCOPE,
        queries("httpx default timeout"),
        GOOD,
        context=earlier,
    )
    rewrite_turn = user_texts("chat", fake.requests[0].body)[0]
    assert earlier[0] in rewrite_turn and "and what is the default timeout?" in rewrite_turn
    assert retriever.queries[1] == "httpx default timeout"
    assert result.question == "and what is the default timeout?"


def test_rewrite_is_skipped_for_an_english_standalone_question() -> None:
    retriever = _retriever()
    result, fake = ask_rewritten("chat", retriever, "what is the default timeout?", SCOPE, GOOD)
    assert result.status is AnswerStatus.ANSWERED
    assert [is_rewrite(r) for r in fake.requests] == [False]
    assert retriever.queries == ["what is the default timeout?"]
    assert result.rewrites == ()


def test_rewrite_always_mode_rewrites_english_too() -> None:
    _, fake = ask_rewritten(
        "chat", _retriever(), "default timeout?", SCOPE, queries("timeout"), GOOD, mode="always"
    )
    assert [is_rewrite(r) for r in fake.requests] == [True, False]


FAILURES = {
    "429": http_error(429, "slow down"),
    "500": http_error(500, "boom"),
    "garbage": raw_text("Here are some queries: timeout, default"),
    "no queries": queries("  ", SPANISH),
}


@pytest.mark.parametrize("case", FAILURES)
def test_rewrite_failure_falls_back_to_the_question_with_a_log_line(
    case: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, "docbot.pipeline")
    retriever = _retriever()
    result, fake = ask_rewritten(
        "chat",
        retriever,
        SPANISH,
        SCOPE,
        FAILURES[case],
        GOOD,
        max_retries=0,
        response_format="json_schema",  # the reply itself is judged, not the server
    )
    assert result.status is AnswerStatus.ANSWERED
    assert retriever.queries == [SPANISH]
    if case != "no queries":
        assert any("query rewrite failed" in r.getMessage() for r in caplog.records)
    assert len(fake.requests) == 2


def test_rewrite_timeout_falls_back_and_counts_against_the_deadline(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The rewrite hangs while 20 s go by: its 10 s share ends it; the answer is still made in the
    # 25 s left of the answer's 45.
    caplog.set_level(logging.INFO, "docbot.pipeline")
    clock = FakeClock()
    steps = [20.0, 0.0]
    retriever = _retriever()
    result, fake = ask_rewritten(
        "chat",
        retriever,
        SPANISH,
        SCOPE,
        hang(),
        GOOD,
        clock=clock,
        on_request=lambda _: clock.advance(steps.pop(0)),
    )
    assert result.status is AnswerStatus.ANSWERED
    assert retriever.queries == [SPANISH]
    assert len(fake.requests) == 2
    (failed,) = [r.getMessage() for r in caplog.records if "query rewrite failed" in r.getMessage()]
    assert "kind=timeout" in failed and "answer.rewrite_timeout_seconds: 10 s" in failed


def test_rewrite_schema_is_a_valid_strict_schema() -> None:
    assert strict_schema_problems(strict_schema(SearchQueries)) == []
