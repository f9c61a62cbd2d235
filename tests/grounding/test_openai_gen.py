"""OpenAIGenerator with the real `openai` client against the fake server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
from typing import Any, Literal

import pytest

from grounding.answer import Answer, AnswerStatus, Usage
from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.base import (
    Generation,
    GenerationError,
    GenerationRequest,
    Generator,
)
from grounding.generators.openai_gen import (
    OpenAIGenerator,
    make_openai_client,
    safety_identifier,
)
from grounding.pipeline import ERROR_MESSAGES, AnswerPipeline
from grounding.prompt import build_prompt, correction_note
from grounding.schema import GroundedClaim, GroundedResponse
from grounding.strict_schema import strict_schema_problems
from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.errors import ConfigError
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fake_openai import (
    FakeOpenAI,
    Reply,
    answer,
    http_error,
    narrated,
    raw_text,
    refusal,
    slow,
    truncated,
)
from tests.grounding.fakes import FakeRetriever, WordCounter, make_chunk

API = Literal["responses", "chat"]
APIS: tuple[API, ...] = ("responses", "chat")
MODEL = "gpt-5-mini"
USER = "U024BE7LH"
TIMEOUT_TEXT = "Timeouts default to five seconds; pass timeout=None to disable them."


def _packet() -> EvidencePacket:
    scope = Scope("T0123ABC", "C0123ABC", ConversationKind.CHANNEL, ("httpx",))
    texts = [TIMEOUT_TEXT, "Use httpx.Client(timeout=10.0) to set a client-wide timeout."]
    items = []
    for n, text in enumerate(texts, start=1):
        digest = text_digest(text)
        chunk = Chunk(
            chunk_id=make_chunk_id("httpx", "advanced/timeouts.md", digest, 0),
            collection="httpx",
            path="advanced/timeouts.md",
            heading_path=("Timeouts",),
            start_line=10 * n,
            end_line=10 * n + 3,
            text=text,
            digest=digest,
            updated="2026-01-02",
        )
        items.append(EvidenceItem(label=f"E{n}", chunk=chunk, score=5.0 - n))
    return EvidencePacket(
        question="What is the default timeout?",
        scope=scope,
        generation="gen-1",
        policy=PackPolicy(),
        items=tuple(items),
        omitted=(),
        tokens=40,
    )


def _request(*, correction: str | None = None, user_id: str | None = USER) -> GenerationRequest:
    packet = _packet()
    return GenerationRequest(packet, build_prompt(packet), user_id=user_id, correction=correction)


async def _generate(
    fake: FakeOpenAI,
    api: API,
    request: GenerationRequest,
    *,
    timeout: float = 5.0,
    max_retries: int = 2,
    effort: str | None = "low",
    base_url: str | None = None,
) -> Generation | GenerationError:
    client = make_openai_client("sk-test", base_url or fake.base_url, timeout, max_retries)
    generator: Generator = OpenAIGenerator(client, MODEL, api=api, reasoning_effort=effort)
    try:
        return await generator.generate(request)
    except GenerationError as exc:
        return exc
    finally:
        await client.close()


def _serve(
    api: API,
    *replies: Reply,
    fallback: Reply | None = None,
    request: GenerationRequest | None = None,
    **options: Any,
) -> tuple[Generation | GenerationError, FakeOpenAI]:
    async def run() -> tuple[Generation | GenerationError, FakeOpenAI]:
        async with FakeOpenAI() as fake:
            fake.script(api, *replies)
            if fallback is not None:
                fake.always(api, fallback)
            outcome = await _generate(fake, api, request or _request(), **options)
            return outcome, fake

    return asyncio.run(run())


def _error(outcome: Generation | GenerationError) -> GenerationError:
    assert isinstance(outcome, GenerationError), f"expected a GenerationError, got {outcome!r}"
    return outcome


def _generation(outcome: Generation | GenerationError) -> Generation:
    assert isinstance(outcome, Generation), f"expected a Generation, got {outcome!r}"
    return outcome


def _schema_sent(api: API, body: dict[str, Any]) -> dict[str, Any]:
    fmt = body["text"]["format"] if api == "responses" else body["response_format"]["json_schema"]
    assert fmt["strict"] is True
    schema: dict[str, Any] = fmt["schema"]
    return schema


def _user_texts(api: API, body: dict[str, Any]) -> list[str]:
    messages = body["input"] if api == "responses" else body["messages"]
    return [m["content"] for m in messages if m["role"] == "user"]


GOOD = answer([("Timeouts default to five seconds.", ["E1"])])


@pytest.mark.parametrize("api", APIS)
def test_generate_returns_the_grounded_response_and_usage(api: API) -> None:
    outcome, fake = _serve(api, GOOD)
    generation = _generation(outcome)
    assert generation.response == GroundedResponse(
        status="answered",
        claims=[GroundedClaim(text="Timeouts default to five seconds.", citations=["E1"])],
        message="",
    )
    (recorded,) = fake.requests
    assert generation.usage == Usage(*recorded.usage)
    assert generation.usage.input_tokens > 0 and generation.usage.output_tokens > 0


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_a_strict_schema_and_keeps_nothing_at_openai(api: API) -> None:
    _, fake = _serve(api, GOOD)
    (body,) = fake.bodies(api)
    assert body["model"] == MODEL
    assert body["store"] is False
    schema = _schema_sent(api, body)
    assert strict_schema_problems(schema) == []
    assert schema["required"] == ["status", "claims", "message"]
    assert fake.requests[0].headers["Authorization"] == "Bearer sk-test"


def test_generate_responses_puts_instructions_apart_from_the_evidence() -> None:
    _, fake = _serve("responses", GOOD)
    (body,) = fake.bodies("responses")
    assert body["instructions"] == _request().prompt.instructions
    assert body["input"] == [{"role": "user", "content": _request().prompt.input}]
    assert body["reasoning"] == {"effort": "low"}
    assert body["max_output_tokens"] == 2000


def test_generate_chat_sends_instructions_as_the_system_message() -> None:
    _, fake = _serve("chat", GOOD)
    (body,) = fake.bodies("chat")
    assert body["messages"][0] == {"role": "system", "content": _request().prompt.instructions}
    assert body["messages"][1:] == [{"role": "user", "content": _request().prompt.input}]
    assert body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] == 2000


@pytest.mark.parametrize("api", APIS)
def test_generate_omits_reasoning_when_no_effort_is_set(api: API) -> None:
    _, fake = _serve(api, GOOD, effort=None)
    (body,) = fake.bodies(api)
    assert "reasoning" not in body and "reasoning_effort" not in body


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_a_hash_of_the_user_never_the_slack_id(api: API) -> None:
    _, fake = _serve(api, GOOD)
    (recorded,) = fake.requests
    expected = hashlib.sha256(USER.encode()).hexdigest()[:32]
    assert recorded.body["safety_identifier"] == expected == safety_identifier(USER)
    assert USER not in json.dumps(recorded.body)


@pytest.mark.parametrize("api", APIS)
def test_generate_omits_the_safety_identifier_without_a_user(api: API) -> None:
    _, fake = _serve(api, GOOD, request=_request(user_id=None))
    (body,) = fake.bodies(api)
    assert "safety_identifier" not in body


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_the_correction_as_its_own_turn(api: API) -> None:
    correction = correction_note(["E7"], _packet().labels)
    outcome, fake = _serve(api, GOOD, request=_request(correction=correction))
    _generation(outcome)
    (body,) = fake.bodies(api)
    assert _user_texts(api, body) == [_request().prompt.input, correction]


@pytest.mark.parametrize("api", APIS)
def test_generate_sends_no_correction_on_the_first_try(api: API) -> None:
    _, fake = _serve(api, GOOD)
    (body,) = fake.bodies(api)
    assert _user_texts(api, body) == [_request().prompt.input]


def test_generate_reads_only_the_final_answer_after_commentary() -> None:
    outcome, _ = _serve("responses", narrated("Looking at the timeouts page first.", GOOD))
    assert _generation(outcome).response.claims[0].text == "Timeouts default to five seconds."


@pytest.mark.parametrize("api", APIS)
def test_generate_refusal_is_a_refusal_error(api: API) -> None:
    outcome, _ = _serve(api, refusal("I can't help with that."))
    error = _error(outcome)
    assert error.kind == "refusal"
    # The refusal is model text that may quote the evidence, and the message is logged.
    assert "help with that" not in str(error) and "refused" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_generate_truncated_reply_is_incomplete_not_invalid(api: API) -> None:
    outcome, _ = _serve(api, truncated())
    error = _error(outcome)
    assert error.kind == "incomplete"
    assert "max_output_tokens" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_generate_malformed_json_is_invalid(api: API) -> None:
    outcome, _ = _serve(api, raw_text('Sure! {"status": "answered", claims: [}'))
    error = _error(outcome)
    assert error.kind == "invalid"
    assert "GroundedResponse" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_generate_json_of_the_wrong_shape_is_invalid(api: API) -> None:
    outcome, _ = _serve(api, raw_text('{"status": "maybe", "claims": [], "message": ""}'))
    error = _error(outcome)
    assert error.kind == "invalid"
    assert "status" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_generate_empty_output_is_invalid(api: API) -> None:
    outcome, _ = _serve(api, raw_text(""))
    assert _error(outcome).kind == "invalid"


@pytest.mark.parametrize("api", APIS)
def test_generate_retries_a_rate_limit_then_succeeds(api: API) -> None:
    outcome, fake = _serve(api, http_error(429), GOOD)
    assert _generation(outcome).response.claims[0].citations == ["E1"]
    assert len(fake.requests) == 2


@pytest.mark.parametrize("api", APIS)
def test_generate_rate_limited_forever_stops_after_bounded_retries(api: API) -> None:
    outcome, fake = _serve(api, fallback=http_error(429, "Rate limit reached"), max_retries=2)
    error = _error(outcome)
    assert error.kind == "rate_limited"
    assert "Rate limit reached" in str(error)
    assert len(fake.requests) == 3  # the first try and two retries, no more


def test_generate_out_of_quota_says_to_check_billing() -> None:
    quota = http_error(429, "You exceeded your current quota", code="insufficient_quota")
    outcome, _ = _serve("responses", fallback=quota, max_retries=0)
    error = _error(outcome)
    assert error.kind == "rate_limited"
    assert "quota" in str(error) and "billing" in str(error)


@pytest.mark.parametrize("api", APIS)
def test_generate_slow_server_is_a_timeout(api: API) -> None:
    outcome, fake = _serve(api, slow(2.0, GOOD), timeout=0.3, max_retries=0)
    assert _error(outcome).kind == "timeout"
    assert len(fake.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_generate_server_errors_are_unavailable_after_retries(api: API) -> None:
    outcome, fake = _serve(api, fallback=http_error(500, "The server had an error"), max_retries=1)
    error = _error(outcome)
    assert error.kind == "unavailable"
    assert "HTTP 500" in str(error)
    assert len(fake.requests) == 2


@pytest.mark.parametrize("api", APIS)
def test_generate_bad_key_is_auth_and_not_retried(api: API) -> None:
    outcome, fake = _serve(api, fallback=http_error(401, "Incorrect API key provided"))
    error = _error(outcome)
    assert error.kind == "auth"
    assert "OPENAI_API_KEY" in str(error)
    assert len(fake.requests) == 1


KEY_BODY = (
    "Incorrect API key provided: sk-proj-abcd************************wxyz. You can find your "
    "API key at https://platform.openai.com/account/api-keys."
)


@pytest.mark.parametrize("status", [401, 403, 404, 500])
def test_generate_error_detail_never_carries_a_key_fragment(status: int) -> None:
    outcome, _ = _serve("responses", fallback=http_error(status, KEY_BODY), max_retries=0)
    detail = str(_error(outcome))
    assert "sk-proj" not in detail and "abcd" not in detail and "wxyz" not in detail
    assert "Incorrect API key provided: [redacted key]" in detail


def test_generate_unknown_model_is_rejected_with_a_hint() -> None:
    outcome, _ = _serve("chat", http_error(404, "The model `gpt-9` does not exist"))
    error = _error(outcome)
    assert error.kind == "rejected"
    assert "gpt-9" in str(error) and "answer.model" in str(error)


def test_generate_unreachable_server_is_unavailable() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    outcome, _ = _serve("responses", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    error = _error(outcome)
    assert error.kind == "unavailable"
    assert "OPENAI_BASE_URL" in str(error)


def test_openai_generator_is_named_after_its_model() -> None:
    client = make_openai_client("sk-test", "http://127.0.0.1:9/v1", 1.0, 0)
    assert OpenAIGenerator(client, "gpt-5-mini").name == "openai:gpt-5-mini"


def test_make_openai_client_sets_timeout_retries_and_url() -> None:
    client = make_openai_client("sk-test", "http://127.0.0.1:9/v1", 12.5, 3)
    assert client.timeout == 12.5
    assert client.max_retries == 3
    assert str(client.base_url) == "http://127.0.0.1:9/v1/"


def test_make_openai_client_defaults_to_openai_not_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    client = make_openai_client("sk-test", None, 30.0, 2)
    assert str(client.base_url) == "https://api.openai.com/v1/"


@pytest.mark.parametrize("key", ["", "   "])
def test_make_openai_client_rejects_an_empty_key(key: str) -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_openai_client(key, None, 30.0, 2)


def test_make_openai_client_rejects_a_url_without_scheme() -> None:
    with pytest.raises(ConfigError, match="OPENAI_BASE_URL"):
        make_openai_client("sk-test", "127.0.0.1:11434/v1", 30.0, 2)


# Through the real AnswerPipeline: the generator's output is regenerated and verified there.

QUESTION = "What is the default timeout?"
TIMEOUTS = make_chunk(TIMEOUT_TEXT, collection="httpx", path="advanced/timeouts.md", start_line=12)
CLIENTS = make_chunk(
    "Use httpx.Client(timeout=10.0) to set a client-wide timeout.",
    collection="httpx",
    path="advanced/clients.md",
    start_line=40,
)


def _ask(
    api: API, *replies: Reply, fallback: Reply | None = None, max_retries: int = 2
) -> tuple[Answer, FakeOpenAI]:
    async def run() -> tuple[Answer, FakeOpenAI]:
        async with FakeOpenAI() as fake:
            fake.script(api, *replies)
            if fallback is not None:
                fake.always(api, fallback)
            client = make_openai_client("sk-test", fake.base_url, 5.0, max_retries)
            pipeline = AnswerPipeline(
                FakeRetriever([TIMEOUTS, CLIENTS]),
                OpenAIGenerator(client, MODEL, api=api),
                WordCounter(),
                PackPolicy(),
                lambda chunk: f"https://docs.example/{chunk.path}#L{chunk.start_line}",
            )
            scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))
            try:
                answer = await pipeline.answer(QUESTION, scope, user_id=USER)
            finally:
                await client.close()
            return answer, fake

    return asyncio.run(run())


@pytest.mark.parametrize("api", APIS)
def test_pipeline_regenerates_once_after_an_unknown_evidence_id(api: API) -> None:
    invented = answer([("Timeouts default to five seconds.", ["E9"])])
    answer_, fake = _ask(api, invented, GOOD)
    assert answer_.status is AnswerStatus.ANSWERED
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    assert answer_.sources[0].chunk_id == TIMEOUTS.chunk_id
    first, second = fake.bodies(api)
    assert len(_user_texts(api, first)) == 1
    question, correction = _user_texts(api, second)
    assert question == _user_texts(api, first)[0]
    assert "'E9'" in correction and "E1" in correction
    totals = [sum(r.usage[i] for r in fake.requests) for i in (0, 1)]
    assert answer_.usage == Usage(*totals)
    assert answer_.generator == "openai:gpt-5-mini"


@pytest.mark.parametrize("api", APIS)
def test_pipeline_drops_a_claim_whose_number_is_not_in_its_evidence(api: API) -> None:
    reply = answer(
        [
            ("Timeouts default to five seconds.", ["E1"]),
            ("Timeouts default to 50 seconds.", ["E1"]),
        ]
    )
    answer_, fake = _ask(api, reply)
    assert len(fake.requests) == 1  # every id was known: no regeneration
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    (dropped,) = answer_.dropped_claims
    assert (dropped.text, dropped.reason) == ("Timeouts default to 50 seconds.", "unsupported")


@pytest.mark.parametrize("api", APIS)
def test_pipeline_answers_error_when_the_model_refuses(api: API) -> None:
    answer_, _ = _ask(api, refusal("I can't help with that."))
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.claims == () and answer_.message == ERROR_MESSAGES["refusal"]
    assert answer_.error_detail.startswith("refusal: ")


def test_pipeline_answers_error_when_rate_limited_for_good() -> None:
    answer_, fake = _ask("responses", fallback=http_error(429), max_retries=1)
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.message == ERROR_MESSAGES["rate_limited"]
    assert answer_.error_detail.startswith("rate_limited: ")
    assert len(fake.requests) == 2


def test_pipeline_bad_key_shows_the_user_no_server_detail() -> None:
    answer_, _ = _ask("responses", fallback=http_error(401, KEY_BODY))
    assert answer_.status is AnswerStatus.ERROR
    assert answer_.message == ERROR_MESSAGES["auth"]
    assert "401" in answer_.error_detail and "OPENAI_API_KEY" in answer_.error_detail
    assert "wxyz" not in json.dumps(answer_.to_dict())


def test_pipeline_keeps_the_verified_first_reply_when_regeneration_fails() -> None:
    mixed = answer(
        [("Timeouts default to five seconds.", ["E1"]), ("Pools hold 10 connections.", ["E4"])]
    )
    answer_, fake = _ask("chat", mixed, truncated())
    assert len(fake.requests) == 2
    assert [c.text for c in answer_.claims] == ["Timeouts default to five seconds."]
    assert [d.reason for d in answer_.dropped_claims] == ["unknown_citation"]
