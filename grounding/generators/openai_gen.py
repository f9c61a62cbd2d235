"""The OpenAI generator: the one module that talks to a model through the `openai` SDK.

It sends the prompt with GroundedResponse as a strict JSON schema (Responses or Chat Completions
API), hands the raw reply body to openai_replies (which checks it in a fixed order), and turns
every SDK failure into a GenerationError.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping
from functools import cache
from typing import Any, Literal, cast

import openai
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import EasyInputMessageParam, ResponseTextConfigParam
from openai.types.shared_params import Reasoning, ResponseFormatJSONSchema

from grounding.generators.base import Generation, GenerationError, GenerationRequest
from grounding.generators.openai_replies import read_chat_completion, read_response
from grounding.generators.redaction import Redactor, clip
from grounding.schema import GroundedResponse
from grounding.strict_schema import strict_schema_problems
from retrieval.errors import ConfigError, DocbotError

OPENAI_API_URL = "https://api.openai.com/v1"
SCHEMA_NAME = "grounded_response"
SAFETY_ID_HEX_CHARS = 32  # 128 bits: unique per user, and the raw Slack id never leaves


def make_openai_client(
    api_key: str, base_url: str | None, timeout_seconds: float, max_retries: int
) -> openai.AsyncOpenAI:
    """The SDK client with an explicit per-attempt timeout and its own bounded retries.

    The SDK already retries connection errors, 408/409/429 and 5xx with backoff and honours
    Retry-After, so docbot never loops by hand.
    """
    if not api_key.strip():
        raise ConfigError(
            "OPENAI_API_KEY is empty: set it to an OpenAI API key, or to any non-empty value when "
            "OPENAI_BASE_URL points at a local OpenAI-compatible server (Ollama, vLLM, llama.cpp)."
        )
    url = base_url or OPENAI_API_URL
    if not url.startswith(("https://", "http://")):
        raise ConfigError(
            f"OPENAI_BASE_URL {url!r} is not an http(s) URL: use e.g. http://127.0.0.1:11434/v1"
        )
    # base_url is always passed so the SDK never falls back to reading the environment itself.
    return openai.AsyncOpenAI(
        api_key=api_key, base_url=url, timeout=timeout_seconds, max_retries=max_retries
    )


class OpenAIGenerator:
    """Generator backed by an OpenAI (or OpenAI-compatible) model."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        api: Literal["responses", "chat"] = "responses",
        reasoning_effort: str | None = "low",
        max_output_tokens: int = 2000,
    ) -> None:
        problems = strict_schema_problems(grounded_response_schema())
        if problems:
            raise DocbotError(
                "grounding/schema.py: GroundedResponse is not a valid OpenAI strict-mode schema: "
                + "; ".join(problems)
                + ". Fix the pydantic model so every field is required and has no default."
            )
        self._client = client
        self._model = model
        self._api = api
        self._effort = reasoning_effort
        self._max_output_tokens = max_output_tokens
        self._redact = Redactor((client.api_key,))

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    async def generate(self, request: GenerationRequest) -> Generation:
        try:
            if self._api == "chat":
                return await self._generate_chat(request)
            return await self._generate_responses(request)
        except GenerationError as exc:
            failure = exc
        except openai.OpenAIError as exc:
            failure = translate_openai_error(exc, self._model)
        # The one way out for every failure. Its message is logged, stored and printed by
        # `docbot ask`, and a server can quote the key in any form: redacted here, so no path
        # skips it. Not chained: the SDK's exception holds the unredacted server body.
        raise GenerationError(failure.kind, self._redact(str(failure))) from None

    async def _generate_responses(self, request: GenerationRequest) -> Generation:
        messages: list[EasyInputMessageParam] = [
            {"role": "user", "content": text} for text in _user_messages(request)
        ]
        text_config: ResponseTextConfigParam = {
            "format": {
                "type": "json_schema",
                "name": SCHEMA_NAME,
                "schema": grounded_response_schema(),
                "strict": True,
            }
        }
        optional: dict[str, Any] = {}
        if self._effort is not None:
            optional["reasoning"] = cast(Reasoning, {"effort": self._effort})
        if request.user_id:
            optional["safety_identifier"] = safety_identifier(request.user_id)
        raw = await self._client.responses.with_raw_response.create(
            model=self._model,
            instructions=request.prompt.instructions,
            input=cast(Any, messages),
            text=text_config,
            store=False,  # docbot keeps its own record; nothing is retained at OpenAI
            max_output_tokens=self._max_output_tokens,
            **optional,
        )
        return read_response(raw.content, self._model, raw.headers.get("content-type", ""))

    async def _generate_chat(self, request: GenerationRequest) -> Generation:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": request.prompt.instructions}
        ]
        messages += [{"role": "user", "content": text} for text in _user_messages(request)]
        response_format: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {
                "name": SCHEMA_NAME,
                "schema": grounded_response_schema(),
                "strict": True,
            },
        }
        optional: dict[str, Any] = {}
        if self._effort is not None:
            optional["reasoning_effort"] = self._effort
        if request.user_id:
            optional["safety_identifier"] = safety_identifier(request.user_id)
        # max_completion_tokens, not max_tokens: OpenAI's reasoning models reject the latter, and
        # local servers that do not know the former simply ignore it.
        raw = await self._client.chat.completions.with_raw_response.create(
            model=self._model,
            messages=messages,
            response_format=response_format,
            store=False,
            max_completion_tokens=self._max_output_tokens,
            **optional,
        )
        return read_chat_completion(raw.content, self._model, raw.headers.get("content-type", ""))


def _user_messages(request: GenerationRequest) -> list[str]:
    """The question with its evidence, then (on regeneration) the error in the last reply.

    The correction is sent verbatim as its own turn: `grounding.prompt.correction_note` owns the
    wording (the unknown ids and the valid labels), so the generator adds none of its own.
    """
    if request.correction:
        return [request.prompt.input, request.correction]
    return [request.prompt.input]


def safety_identifier(user_id: str) -> str:
    """A stable, non-reversible id for OpenAI's abuse monitoring; the Slack user id stays here."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:SAFETY_ID_HEX_CHARS]


def translate_openai_error(exc: openai.OpenAIError, model: str) -> GenerationError:
    """One SDK failure (after the SDK's own retries) as a GenerationError that says what to do."""
    if isinstance(exc, openai.APITimeoutError):
        return GenerationError(
            "timeout", f"{model} did not answer within the timeout (answer.timeout_seconds)"
        )
    if isinstance(exc, openai.APIConnectionError):
        return GenerationError(
            "unavailable",
            f"cannot reach the model server for {model}: {clip(str(exc))}; check OPENAI_BASE_URL",
        )
    if isinstance(exc, openai.APIStatusError):
        return _translate_status(exc, model)
    if isinstance(exc, openai.APIResponseValidationError):
        return GenerationError(
            "invalid", f"{model}'s server sent a malformed reply: {clip(str(exc))}"
        )
    return GenerationError("unavailable", f"calling {model} failed: {clip(str(exc))}")


def _translate_status(exc: openai.APIStatusError, model: str) -> GenerationError:
    status, detail = exc.status_code, _server_message(exc)
    if isinstance(exc, openai.RateLimitError):
        if exc.code == "insufficient_quota":
            return GenerationError(
                "rate_limited", f"the OpenAI account is out of quota ({detail}); check billing"
            )
        return GenerationError(
            "rate_limited", f"{model} is rate limited (HTTP 429, retries exhausted): {detail}"
        )
    if status in (401, 403):
        return GenerationError(
            "auth",
            f"the model server rejected the credentials (HTTP {status}): {detail}; "
            "check OPENAI_API_KEY",
        )
    if status >= 500:
        return GenerationError("unavailable", f"{model}'s server failed (HTTP {status}): {detail}")
    # 400/404/422: the request itself was refused, usually a model name or an option the
    # server does not support.
    return GenerationError(
        "rejected",
        f"the model server refused the request (HTTP {status}): {detail}; "
        "check answer.model and answer.api in docbot.yml",
    )


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = exc.message
    if isinstance(body, Mapping) and isinstance(body.get("message"), str) and body["message"]:
        message = body["message"]
    return clip(message)


@cache
def _strict_schema() -> dict[str, Any]:
    # The SDK's own helper, so the schema is exactly what its `parse()` helpers would send.
    return to_strict_json_schema(GroundedResponse)


def grounded_response_schema() -> dict[str, Any]:
    """The strict JSON schema sent with every request (a fresh copy: callers may mutate it)."""
    return copy.deepcopy(_strict_schema())
