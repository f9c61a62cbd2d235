"""What OpenAIGenerator sends, through the real `openai` client to the fake server on 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from grounding.answer import Usage
from grounding.generators.openai_gen import (
    OpenAIGenerator,
    make_openai_client,
    safety_identifier,
)
from grounding.prompt import correction_note
from grounding.schema import GroundedClaim, GroundedResponse
from grounding.strict_schema import strict_schema_problems
from retrieval.errors import ConfigError
from tests.grounding.fake_openai import answer
from tests.grounding.openai_harness import (
    API,
    APIS,
    MODEL,
    USER,
    generation,
    make_packet,
    make_request,
    serve,
    user_texts,
)

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])


def _schema_sent(api: API, body: dict[str, Any]) -> dict[str, Any]:
    fmt = body["text"]["format"] if api == "responses" else body["response_format"]["json_schema"]
    assert fmt["strict"] is True
    schema: dict[str, Any] = fmt["schema"]
    return schema


@pytest.mark.parametrize("api", APIS)
def test_generate_returns_the_grounded_response_and_usage(api: API) -> None:
    outcome, fake = serve(api, GOOD)
    result = generation(outcome)
    assert result.response == GroundedResponse(
        status="answered",
        claims=[
            GroundedClaim(
                text="Timeouts default to five seconds.",
                citations=["E1"],
                quotes=["Timeouts default to five seconds."],
            )
        ],
        message="",
    )
    (recorded,) = fake.requests
    assert result.usage == Usage(*recorded.usage)
    assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_a_strict_schema_and_keeps_nothing_at_openai(api: API) -> None:
    _, fake = serve(api, GOOD)
    (body,) = fake.bodies(api)
    assert body["model"] == MODEL
    assert body["store"] is False
    schema = _schema_sent(api, body)
    assert strict_schema_problems(schema) == []
    assert schema["required"] == ["status", "claims", "message"]
    assert fake.requests[0].headers["Authorization"] == "Bearer sk-test"


def test_generate_responses_puts_instructions_apart_from_the_evidence() -> None:
    _, fake = serve("responses", GOOD)
    (body,) = fake.bodies("responses")
    assert body["instructions"] == make_request().prompt.instructions
    assert body["input"] == [{"role": "user", "content": make_request().prompt.input}]
    assert body["reasoning"] == {"effort": "low"}
    assert body["max_output_tokens"] == 2000


def test_generate_chat_sends_instructions_as_the_system_message() -> None:
    _, fake = serve("chat", GOOD)
    (body,) = fake.bodies("chat")
    system = {"role": "system", "content": make_request().prompt.instructions}
    assert body["messages"][0] == system
    assert body["messages"][1:] == [{"role": "user", "content": make_request().prompt.input}]
    assert body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] == 2000


@pytest.mark.parametrize("api", APIS)
def test_generate_omits_reasoning_when_no_effort_is_set(api: API) -> None:
    _, fake = serve(api, GOOD, reasoning_effort=None)
    (body,) = fake.bodies(api)
    assert "reasoning" not in body and "reasoning_effort" not in body


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_a_hash_of_the_user_never_the_slack_id(api: API) -> None:
    _, fake = serve(api, GOOD)
    (recorded,) = fake.requests
    expected = hashlib.sha256(USER.encode()).hexdigest()[:32]
    assert recorded.body["safety_identifier"] == expected == safety_identifier(USER)
    assert USER not in json.dumps(recorded.body)


@pytest.mark.parametrize("api", APIS)
def test_generate_omits_the_safety_identifier_without_a_user(api: API) -> None:
    _, fake = serve(api, GOOD, request=make_request(user_id=None))
    (body,) = fake.bodies(api)
    assert "safety_identifier" not in body


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_the_correction_as_its_own_turn(api: API) -> None:
    correction = correction_note(["E7"], make_packet().labels)
    outcome, fake = serve(api, GOOD, request=make_request(correction=correction))
    generation(outcome)
    (body,) = fake.bodies(api)
    assert user_texts(api, body) == [make_request().prompt.input, correction]


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_no_correction_on_the_first_try(api: API) -> None:
    _, fake = serve(api, GOOD)
    (body,) = fake.bodies(api)
    assert user_texts(api, body) == [make_request().prompt.input]


def test_openai_generator_is_named_after_its_model() -> None:
    client = make_openai_client("sk-test", "http://127.0.0.1:9/v1")
    assert OpenAIGenerator(client, "gpt-5-mini").name == "openai:gpt-5-mini"


def test_make_openai_client_turns_the_sdk_retries_off_and_sets_the_url() -> None:
    # The generator retries within the answer's deadline; the SDK's own retries would not.
    client = make_openai_client("sk-test", "http://127.0.0.1:9/v1")
    assert client.max_retries == 0
    assert str(client.base_url) == "http://127.0.0.1:9/v1/"


def test_make_openai_client_defaults_to_openai_not_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    client = make_openai_client("sk-test", None)
    assert str(client.base_url) == "https://api.openai.com/v1/"


@pytest.mark.parametrize("key", ["", "   "])
def test_make_openai_client_rejects_an_empty_key(key: str) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_openai_client(key, None)


def test_make_openai_client_rejects_a_url_without_scheme() -> None:
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        make_openai_client("sk-test", "127.0.0.1:11434/v1")
