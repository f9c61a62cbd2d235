"""The real OpenAIGenerator inside the real AnswerPipeline: regeneration, verification, errors."""

from __future__ import annotations

import json

import pytest

from bot.render.no_answer import MODEL_FAILURE_TEXT, no_answer_text
from grounding.answer import AnswerStatus, NoAnswer, Usage
from tests.grounding.fake_openai import answer, http_error, refusal, truncated
from tests.grounding.openai_harness import API, APIS, CLIENTS, TIMEOUTS, ask, user_texts

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])
KEY_BODY = "Incorrect API key provided: sk-proj-abcd************************wxyz."


@pytest.mark.parametrize("api", APIS)
def test_pipeline_regenerates_once_after_an_unknown_evidence_id(api: API) -> None:
    invented = answer([("Timeouts default to five seconds.", ["E9"])])
    answer_, fake = ask(api, invented, GOOD)
    assert answer_.status is AnswerStatus.ANSWERED
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    assert answer_.sources[0].chunk_id == TIMEOUTS.chunk_id
    first, second = fake.bodies(api)
    assert len(user_texts(api, first)) == 1
    question, correction = user_texts(api, second)
    assert question == user_texts(api, first)[0]
    assert "'E9'" in correction and "E1" in correction
    totals = [sum(r.usage[i] for r in fake.requests) for i in (0, 1)]
    assert answer_.usage == Usage(*totals)
    assert answer_.generator == "openai:gpt-5-mini"


@pytest.mark.parametrize("api", APIS)
def test_pipeline_drops_a_claim_whose_number_is_not_in_its_evidence(api: API) -> None:
    reply = answer(
        [
            ("Timeouts default to five seconds.", ["E1"]),
            ("Timeouts default to 50 seconds.", ["E1"], ["Timeouts default to five seconds."]),
        ]
    )
    answer_, fake = ask(api, reply)
    assert len(fake.requests) == 1  # every id was known: no regeneration
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    (dropped,) = answer_.dropped_claims
    assert (dropped.text, dropped.reason) == ("Timeouts default to 50 seconds.", "unsupported")


@pytest.mark.parametrize("api", APIS)
def test_pipeline_answers_error_when_the_model_refuses(api: API) -> None:
    answer_, _ = ask(api, refusal("I can't help with that."))
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.claims == () and answer_.reason is NoAnswer.MODEL_REFUSED
    assert no_answer_text(answer_) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_REFUSED]
    assert answer_.error_detail.startswith("refusal: ")


def test_pipeline_answers_error_when_rate_limited_for_good() -> None:
    answer_, fake = ask("responses", fallback=http_error(429), max_retries=1)
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.reason is NoAnswer.MODEL_RATE_LIMITED
    assert no_answer_text(answer_) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_RATE_LIMITED]
    assert answer_.error_detail.startswith("rate_limited: ")
    assert len(fake.requests) == 2


def test_pipeline_bad_key_shows_the_user_no_server_detail() -> None:
    answer_, _ = ask("responses", fallback=http_error(401, KEY_BODY))
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.reason is NoAnswer.MODEL_SETUP
    assert no_answer_text(answer_) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_SETUP]
    assert "401" in answer_.error_detail and "OPENAI_API_KEY" in answer_.error_detail
    assert "wxyz" not in json.dumps(answer_.to_dict())


def test_pipeline_keeps_the_verified_first_reply_when_regeneration_fails() -> None:
    mixed = answer(
        [("Timeouts default to five seconds.", ["E1"]), ("Pools hold 10 connections.", ["E4"])]
    )
    answer_, fake = ask("chat", mixed, truncated())
    assert len(fake.requests) == 2
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    assert [d.reason for d in answer_.dropped_claims] == ["unknown_citation"]
    assert CLIENTS.chunk_id not in [s.chunk_id for s in answer_.sources]
