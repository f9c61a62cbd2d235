"""OpenAIGenerator.stream(): the real client, `stream: true`, against the fake server's event
streams; each piece of the answer's text handed on as it comes, the result checked like a whole
reply."""

from __future__ import annotations

import asyncio

import pytest

from grounding.generators.base import Generation, GenerationError
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from tests.grounding.fake_openai import (
    FakeOpenAI,
    Reply,
    answer,
    loopback_http_client,
    narrated,
    paced,
    raw_body,
    refusal,
    truncated,
)
from tests.grounding.openai_harness import API, APIS, KEY, MODEL, TIMEOUT_TEXT, make_request

CLAIMS = [(TIMEOUT_TEXT, ["E1"], ["Timeouts default to five seconds"])]


def _stream(api: API, reply: Reply) -> tuple[Generation | GenerationError, list[str], FakeOpenAI]:
    pieces: list[str] = []

    async def run() -> tuple[Generation | GenerationError, FakeOpenAI]:
        async with FakeOpenAI() as fake:
            fake.script(api, reply)
            client = make_openai_client(KEY, fake.base_url, http_client=loopback_http_client())
            generator = OpenAIGenerator(client, MODEL, api=api)
            try:
                return await generator.stream(make_request(), pieces.append), fake
            except GenerationError as exc:
                return exc, fake
            finally:
                await client.close()

    outcome, fake = asyncio.run(run())
    return outcome, pieces, fake


@pytest.mark.parametrize("api", APIS)
def test_stream_hands_over_the_text_in_pieces_and_returns_the_checked_response(api: API) -> None:
    reply = answer(CLAIMS)
    outcome, pieces, fake = _stream(api, paced(0.05, reply))
    assert isinstance(outcome, Generation)
    assert len(pieces) > 5 and "".join(pieces) == reply.text
    assert outcome.response.claims[0].text == TIMEOUT_TEXT
    assert outcome.usage.input_tokens > 0 and outcome.usage.output_tokens > 0
    (body,) = fake.bodies(api)
    assert body["stream"] is True
    assert ("stream_options" in body) is (api == "chat")


def test_stream_leaves_narration_out_of_the_answer_text() -> None:
    reply = narrated("Looking at E1 first {", answer(CLAIMS))
    outcome, pieces, _ = _stream("responses", reply)
    assert isinstance(outcome, Generation) and "".join(pieces) == reply.text


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("reply", "kind"), [(refusal(), "refusal"), (truncated(), "incomplete")])
def test_stream_failures_are_the_same_kinds_as_a_whole_reply(
    api: API, reply: Reply, kind: str
) -> None:
    outcome, _, _ = _stream(api, reply)
    assert isinstance(outcome, GenerationError) and outcome.kind == kind


@pytest.mark.parametrize("api", APIS)
def test_stream_from_a_server_that_ignores_stream_reads_the_body_whole(api: API) -> None:
    outcome, pieces, _ = _stream(
        api, raw_body("<html>bad gateway</html>", content_type="text/html")
    )
    assert isinstance(outcome, GenerationError) and outcome.kind == "invalid"
    assert "the body is not JSON" in str(outcome) and pieces == []
