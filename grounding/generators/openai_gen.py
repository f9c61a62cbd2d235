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

from grounding.deadline import Clock, Deadline, SystemClock, retry_wait
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
    api_key: str, base_url: str | None, *, http_client: openai.DefaultAsyncHttpxClient | None = None
) -> openai.AsyncOpenAI:
    """The SDK client, with the SDK's own retries off; `http_client` replaces the SDK's default.

    The SDK would retry timeouts and connection errors too, each attempt with a full timeout, so
    a hanging server held an answer for timeout x attempts. OpenAIGenerator retries instead:
    only 429 and 5xx, and only within the answer's deadline.
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
    # Every call passes its own timeout: what is left of the answer's deadline.
    return openai.AsyncOpenAI(api_key=api_key, base_url=url, max_retries=0, http_client=http_client)


class OpenAIGenerator:
    """Generator backed by an OpenAI (or OpenAI-compatible) model.

    One call takes at most `timeout_seconds` and never outlasts the request's deadline; a 429
    or 5xx is retried up to `max_retries` times, after the server's Retry-After (else backoff),
    when that wait ends before the deadline. Timeouts and connection failures are not retried.
    """

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        api: Literal["responses", "chat"] = "responses",
        reasoning_effort: str | None = "low",
        max_output_tokens: int = 2000,
        timeout_seconds: float = 30.0,
        max_retries: int = 2,
        clock: Clock | None = None,
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
        self._timeout = timeout_seconds
        self._max_retries = max_retries
        self._clock = clock or SystemClock()  # used when a request brings no deadline
        self._redact = Redactor((client.api_key,))

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    async def generate(self, request: GenerationRequest) -> Generation:
        deadline = request.deadline or Deadline.unbounded(self._clock)
        try:
            return await self._with_retries(request, deadline)
        except GenerationError as exc:
            failure = exc
        except openai.OpenAIError as exc:
            failure = translate_openai_error(exc, self._model)
        # The one way out for every failure. Its message is logged, stored and printed by
        # `docbot ask`, and a server can quote the key in any form: redacted here, so no path
        # skips it. Not chained: the SDK's exception holds the unredacted server body.
        raise GenerationError(failure.kind, self._redact(str(failure))) from None

    async def _with_retries(self, request: GenerationRequest, deadline: Deadline) -> Generation:
        attempts = 0
        while True:
            attempts += 1
            try:
                return await self._attempt(request, deadline, attempts)
            except openai.APIStatusError as exc:
                if not _retryable(exc):
                    raise
                wait = retry_wait(exc.response.headers, attempts - 1)
                stop = self._why_not_retry(attempts, wait, deadline)
                if stop:
                    failure = translate_openai_error(exc, self._model)
                    raise GenerationError(failure.kind, f"{failure}; {stop}") from None
            await deadline.clock.sleep(wait)

    def _why_not_retry(self, attempts: int, wait: float, deadline: Deadline) -> str:
        """Why a 429 or 5xx is the end of it ("" when it is retried)."""
        if attempts > self._max_retries:
            return f"gave up after {attempts} attempt(s) (answer.max_retries: {self._max_retries})"
        left = deadline.remaining()
        if wait >= left:
            return (
                f"not retried after {attempts} attempt(s): the wait of {wait:.1f} s would end "
                f"after the answer's deadline ({left:.1f} s left of answer.deadline_seconds)"
            )
        return ""

    async def _attempt(
        self, request: GenerationRequest, deadline: Deadline, attempt: int
    ) -> Generation:
        left = deadline.remaining()
        budget = min(self._timeout, left)
        if budget <= 0:
            raise GenerationError(
                "timeout",
                f"no time was left of answer.deadline_seconds ({deadline.seconds:g} s) for "
                f"attempt {attempt} to call {self._model}",
            )
        try:
            # The SDK's timeout bounds each read; this bounds the whole call, so a server that
            # trickles bytes cannot outlast the deadline either.
            async with deadline.clock.timeout(budget):
                if self._api == "chat":
                    return await self._generate_chat(request, budget)
                return await self._generate_responses(request, budget)
        except (TimeoutError, openai.APITimeoutError):
            if left <= self._timeout:
                why = f"the answer's deadline (answer.deadline_seconds: {deadline.seconds:g} s)"
            else:
                why = f"answer.timeout_seconds ({self._timeout:g} s)"
            raise GenerationError(
                "timeout",
                f"{self._model} did not answer attempt {attempt} within {why}; timeouts are not "
                "retried",
            ) from None

    async def _generate_responses(self, request: GenerationRequest, timeout: float) -> Generation:
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
            timeout=timeout,
            **optional,
        )
        return read_response(raw.content, self._model, raw.headers.get("content-type", ""))

    async def _generate_chat(self, request: GenerationRequest, timeout: float) -> Generation:
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
            timeout=timeout,
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
    """One SDK failure as a GenerationError that says what to do (timeouts are the caller's)."""
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
        return GenerationError("rate_limited", f"{model} is rate limited (HTTP 429): {detail}")
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


def _retryable(exc: openai.APIStatusError) -> bool:
    """429 and 5xx may pass; an exhausted quota does not come back within an answer."""
    if exc.status_code == 429:
        return exc.code != "insufficient_quota"
    return exc.status_code >= 500


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
