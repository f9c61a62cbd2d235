"""answer.response_format against servers that do not take strict schemas, through the real client.

Each fake answers json_schema as vLLM, a FastAPI server, llama.cpp or an old Ollama does
(fake_local_servers.py) and answers JSON mode from its script.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from grounding.deadline import Deadline, SystemClock
from grounding.generators.base import Generation, GenerationError
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.generators.response_formats import FormatMemory
from tests.grounding.fake_local_servers import (
    SERVERS,
    asks_json_object,
    asks_json_schema,
    without_json_schema,
)
from tests.grounding.fake_openai import (
    FakeOpenAI,
    Recorded,
    Reply,
    answer,
    http_error,
    raw_text,
)
from tests.grounding.openai_harness import API, APIS, KEY, MODEL, error, generation, make_request

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])
FENCED = raw_text(
    '```json\n{"status": "answered", "claims": [{"text": "Timeouts default to five seconds.", '
    '"citations": ["E1"]}], "message": ""}\n```'
)


def run(
    api: API,
    respond: Callable[[Recorded], Reply | None] | None,
    *replies: Reply,
    calls: int = 1,
    memory: FormatMemory | None = None,
    **options: Any,
) -> tuple[list[Generation | GenerationError], FakeOpenAI]:
    """`calls` answers in a row from one generator (or one per call, sharing `memory`)."""

    async def go() -> tuple[list[Generation | GenerationError], FakeOpenAI]:
        async with FakeOpenAI(respond=respond) as fake:
            fake.script(api, *replies)
            client = make_openai_client(KEY, fake.base_url)
            outcomes: list[Generation | GenerationError] = []
            try:
                for _ in range(calls):
                    generator = OpenAIGenerator(client, MODEL, api=api, memory=memory, **options)
                    deadline = Deadline.start(30.0, SystemClock())
                    request = replace(make_request(), deadline=deadline)
                    try:
                        outcomes.append(await generator.generate(request))
                    except GenerationError as exc:
                        outcomes.append(exc)
            finally:
                await client.close()
            return outcomes, fake

    return asyncio.run(go())


def _formats(fake: FakeOpenAI) -> list[str]:
    return [
        "json_schema" if asks_json_schema(r.body) else "json_object" if asks_json_object(r.body)
        else "other"
        for r in fake.requests
    ]  # fmt: skip


def _instructions(api: API, body: dict[str, Any]) -> str:
    if api == "responses":
        return str(body["instructions"])
    return str(body["messages"][0]["content"])


@pytest.mark.parametrize("server", SERVERS)
def test_local_server_without_json_schema_is_answered_in_json_mode(server: str) -> None:
    (outcome,), fake = run("chat", without_json_schema(server), GOOD)
    assert generation(outcome).response.claims[0].text == "Timeouts default to five seconds."
    # One strict try, then JSON mode: llama.cpp's 500 is not retried as a passing failure.
    assert _formats(fake) == ["json_schema", "json_object"]
    schema_shown = _instructions("chat", fake.requests[1].body)
    assert "JSON schema" in schema_shown and '"citations"' in schema_shown


@pytest.mark.parametrize("api", APIS)
def test_local_server_json_mode_works_on_both_apis(api: API) -> None:
    (outcome,), fake = run(api, without_json_schema("vllm"), GOOD)
    assert generation(outcome).response.status == "answered"
    assert _formats(fake) == ["json_schema", "json_object"]


@pytest.mark.parametrize("server", SERVERS)
def test_local_server_detection_is_remembered_for_later_answers(server: str) -> None:
    memory = FormatMemory()
    outcomes, fake = run("chat", without_json_schema(server), GOOD, GOOD, calls=2, memory=memory)
    assert all(isinstance(o, Generation) for o in outcomes)
    # The second answer, from a new generator (a reloaded config), does not pay the detection.
    assert _formats(fake) == ["json_schema", "json_object", "json_object"]


def test_local_server_detection_usage_counts_every_call() -> None:
    (outcome,), fake = run("chat", without_json_schema("ollama"), GOOD)
    spent = [r.usage for r in fake.requests]
    result = generation(outcome)
    assert result.usage.input_tokens == sum(u[0] for u in spent)
    assert result.usage.output_tokens == sum(u[1] for u in spent)


def test_local_server_detection_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, "docbot.generator")
    run("chat", without_json_schema("llama.cpp"), GOOD, GOOD, calls=2, memory=FormatMemory())
    switched = [r for r in caplog.records if "json_object" in r.getMessage()]
    assert len(switched) == 1
    assert "HTTP 500" in switched[0].getMessage()


def test_json_mode_invalid_json_is_retried_once_with_the_problem_named() -> None:
    broken = raw_text('{"status": "answered", "claims": [')
    (outcome,), fake = run("chat", None, broken, GOOD, response_format="json_object")
    assert generation(outcome).response.status == "answered"
    assert _formats(fake) == ["json_object", "json_object"]
    retry_turns = [m["content"] for m in fake.requests[1].body["messages"] if m["role"] == "user"]
    assert "could not be used" in retry_turns[-1]


def test_json_mode_invalid_twice_is_an_invalid_answer() -> None:
    broken = raw_text("I think the timeout is five seconds.")
    (outcome,), fake = run("chat", None, broken, broken, response_format="json_object")
    assert error(outcome).kind == "invalid"
    assert len(fake.requests) == 2


def test_json_mode_reply_in_a_code_fence_is_read() -> None:
    (outcome,), _ = run("chat", None, FENCED, response_format="json_object")
    assert generation(outcome).response.claims[0].citations == ["E1"]


def test_json_mode_schema_is_validated_locally_with_the_same_model() -> None:
    wrong_shape = raw_text(json.dumps({"status": "maybe", "claims": [], "message": ""}))
    (outcome,), _ = run("chat", None, wrong_shape, wrong_shape, response_format="json_object")
    failure = error(outcome)
    assert failure.kind == "invalid" and "GroundedResponse" in str(failure)


def test_json_schema_setting_never_falls_back() -> None:
    (outcome,), fake = run("chat", without_json_schema("vllm"), GOOD, response_format="json_schema")
    failure = error(outcome)
    assert failure.kind == "rejected" and "answer.response_format" in str(failure)
    assert _formats(fake) == ["json_schema"]


def test_json_object_setting_never_tries_json_schema() -> None:
    (outcome,), fake = run("chat", without_json_schema("vllm"), GOOD, response_format="json_object")
    assert generation(outcome).response.status == "answered"
    assert _formats(fake) == ["json_object"]


def test_auto_keeps_json_schema_once_the_server_has_honoured_it() -> None:
    # A server that answered one strict request is strict: later JSON of the wrong shape is the
    # model's failure, reported as such, not a reason to give up the schema.
    wrong_shape = raw_text(json.dumps({"status": "answered", "claims": "none", "message": ""}))
    outcomes, fake = run("chat", None, GOOD, wrong_shape, calls=2, memory=FormatMemory())
    assert isinstance(outcomes[0], Generation)
    assert error(outcomes[1]).kind == "invalid"
    assert _formats(fake) == ["json_schema", "json_schema"]


def test_auto_prose_after_a_good_reply_still_switches() -> None:
    # A schema-ignoring server whose model happened to write valid JSON once (a short rewrite
    # call, say) is still found out by its first prose reply: strict servers never send prose.
    prose = raw_text("Sure! Timeouts default to five seconds.")
    memory = FormatMemory()
    outcomes, fake = run("chat", None, GOOD, prose, GOOD, calls=2, memory=memory)
    assert all(isinstance(o, Generation) for o in outcomes)
    assert _formats(fake) == ["json_schema", "json_schema", "json_object"]


def test_auto_still_retries_a_500_that_does_not_name_the_format() -> None:
    (outcome,), fake = run("chat", None, http_error(500, "overloaded"), GOOD)
    assert generation(outcome).response.status == "answered"
    assert _formats(fake) == ["json_schema", "json_schema"]
