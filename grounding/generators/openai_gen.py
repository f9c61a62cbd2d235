"""The OpenAI generator: the one module that talks to a model through the `openai` SDK.

OpenAIModel sends a structured task (the answer's GroundedResponse, the query rewrite's
SearchQueries) as a strict JSON schema, or JSON mode for servers that reject one (Responses or Chat
Completions API), hands the raw reply body to openai_replies (which checks it in a fixed order),
and turns every SDK failure into a GenerationError.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from collections.abc import Callable
from dataclasses import replace
from functools import cache
from typing import Any, Literal, cast

import openai
from openai.lib._pydantic import to_strict_json_schema
from openai.types.chat import ChatCompletionMessageParam
from openai.types.responses import EasyInputMessageParam, ResponseTextConfigParam
from openai.types.shared_params import Reasoning
from pydantic import BaseModel

from grounding.answer import Usage
from grounding.deadline import Clock, Deadline, SystemClock, retry_wait
from grounding.generators.base import Generation, GenerationError, GenerationRequest
from grounding.generators.model_errors import retryable, why_not_retried

# The SDK client is built there; importers of this module have always found it here.
from grounding.generators.openai_client import make_openai_client as make_openai_client
from grounding.generators.openai_errors import server_message, translate_openai_error
from grounding.generators.openai_replies import (
    JSON_MODE_HINT,
    chat_text,
    parse_reply,
    response_text,
    validate_reply,
)
from grounding.generators.openai_stream import StreamedReply
from grounding.generators.redaction import Redactor, clip
from grounding.generators.response_formats import (
    FormatMemory,
    Mode,
    chat_format,
    ignored_schema,
    json_object_correction,
    json_object_instructions,
    rejects_json_schema,
    responses_format,
    unfence,
)
from grounding.generators.structured import ResponseFormat, Structured, StructuredTask, T
from grounding.schema import GroundedResponse
from grounding.strict_schema import strict_schema_problems
from retrieval.errors import DocbotError

SCHEMA_NAME = "grounded_response"
SAFETY_ID_HEX_CHARS = 32  # 128 bits: unique per user, and the raw Slack id never leaves
API = Literal["responses", "chat"]


class OpenAIModel:
    """One model on one server through the SDK: a StructuredModel (grounding/generators/structured).

    One call takes at most `timeout_seconds` and never outlasts the deadline; a 429 or 5xx is
    retried up to `max_retries` times, after the server's Retry-After (else backoff), when that
    wait ends before the deadline. Timeouts and connection failures are not retried.
    `response_format` (response_formats.py): under `auto`, a server that rejects json_schema, or
    ignores it on the first call, gets json_object with the schema in the instructions from then
    on (remembered in `memory`; the composition root passes the process-wide one); a JSON-mode
    reply that does not validate is retried once with the problem named.
    """

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        api: API = "responses",
        reasoning_effort: str | None = "low",
        max_output_tokens: int = 2000,
        timeout_seconds: float = 30.0,
        max_retries: int = 2,
        response_format: ResponseFormat = "auto",
        memory: FormatMemory | None = None,
        logger: logging.Logger | None = None,
    ) -> None:
        self._client = client
        self._model = model
        self._api = api
        self._effort = reasoning_effort
        self._max_output_tokens = max_output_tokens
        self._timeout = timeout_seconds
        self._max_retries = max_retries
        self._format = response_format
        self._memory = memory or FormatMemory()
        self._key = (str(client.base_url), model, api)
        self._log = logger or logging.getLogger("docbot.generator")
        self._redact = Redactor((client.api_key,))

    @property
    def name(self) -> str:
        return f"openai:{self._model}"

    async def aclose(self) -> None:
        """Close the client's connections to the server; the model takes no calls after."""
        await self._client.close()

    async def complete(
        self, task: StructuredTask[T], deadline: Deadline, user_id: str | None = None
    ) -> Structured[T]:
        try:
            return await self._with_retries(task, deadline, user_id)
        except GenerationError as exc:
            failure = exc
        except openai.OpenAIError as exc:
            failure = translate_openai_error(exc, self._model)
        # The one way out for every failure. Its message is logged, stored and printed by
        # `docbot ask`, and a server can quote the key in any form: redacted here, so no path
        # skips it. Not chained: the SDK's exception holds the unredacted server body.
        raise GenerationError(failure.kind, self._redact(str(failure))) from None

    async def _with_retries(
        self, task: StructuredTask[T], deadline: Deadline, user_id: str | None
    ) -> Structured[T]:
        attempts = 0
        while True:
            attempts += 1
            try:
                return await self._attempt(task, deadline, attempts, user_id)
            except openai.APIStatusError as exc:
                if not retryable(exc.status_code, exc.code):
                    raise
                wait = retry_wait(exc.response.headers, attempts - 1)
                stop = why_not_retried(attempts, self._max_retries, wait, deadline)
                if stop:
                    failure = translate_openai_error(exc, self._model)
                    raise GenerationError(failure.kind, f"{failure}; {stop}") from None
            await deadline.clock.sleep(wait)

    async def _attempt(
        self, task: StructuredTask[T], deadline: Deadline, attempt: int, user_id: str | None
    ) -> Structured[T]:
        left = deadline.remaining()
        budget = min(self._timeout, left)
        if budget <= 0:
            raise GenerationError(
                "timeout",
                f"no time was left of {deadline.setting} ({deadline.seconds:g} s) for "
                f"attempt {attempt} to call {self._model}",
            )
        try:
            # The SDK's timeout bounds each read; this bounds the whole call, so a server that
            # trickles bytes cannot outlast the deadline either.
            async with deadline.clock.timeout(budget):
                return await self._negotiated(task, budget, user_id)
        except (TimeoutError, openai.APITimeoutError):
            if left <= self._timeout:
                why = f"{deadline.label} ({deadline.setting}: {deadline.seconds:g} s)"
            else:
                why = f"answer.timeout_seconds ({self._timeout:g} s)"
            raise GenerationError(
                "timeout",
                f"{self._model} did not answer attempt {attempt} within {why}; timeouts are not "
                "retried",
            ) from None

    async def _negotiated(
        self, task: StructuredTask[T], timeout: float, user_id: str | None
    ) -> Structured[T]:
        """json_schema, or json_object where the config or what was found about the server says."""
        found = self._memory.get(self._key)
        if self._format == "json_object" or (self._format == "auto" and found == "json_object"):
            return await self._json_object(task, timeout, user_id)
        try:
            text, usage = await self._send(task, "json_schema", timeout, user_id)
        except openai.APIStatusError as exc:
            said = f"{exc.message} {exc.body!r}"
            if self._format != "auto" or not rejects_json_schema(exc.status_code, said):
                raise
            self._switch(f"it answered HTTP {exc.status_code}: {server_message(exc)}")
            return await self._json_object(task, timeout, user_id)
        try:
            value = validate_reply(text, self._model, task.schema)
        except GenerationError:
            if self._format != "auto" or not ignored_schema(text, first=found is None):
                raise
            self._switch("its reply ignored the schema")
            later = await self._json_object(task, timeout, user_id)
            return Structured(later.value, usage + later.usage)
        self._memory.remember(self._key, "json_schema")
        return Structured(value, usage)

    def _switch(self, why: str) -> None:
        self._memory.remember(self._key, "json_object")
        self._log.warning(
            "the model server for %s does not take response_format json_schema (%s): using "
            "json_object with the schema in the instructions from now on; set "
            "answer.response_format: json_object to skip this check",
            self._model,
            clip(self._redact(why)),
        )

    async def _json_object(
        self, task: StructuredTask[T], timeout: float, user_id: str | None
    ) -> Structured[T]:
        """JSON mode, validated here against the same pydantic model; one retry if it is not."""
        shown = replace(
            task,
            instructions=json_object_instructions(task.instructions, strict_schema(task.schema)),
        )
        text, usage = await self._send(shown, "json_object", timeout, user_id)
        parsed = parse_reply(unfence(text), self._model, task.schema)
        if not isinstance(parsed, str):
            return Structured(parsed, usage)
        # The note names the problem only: the admin's advice (JSON_MODE_HINT) is not the model's.
        retry = replace(shown, messages=(*shown.messages, json_object_correction(parsed)))
        text, again = await self._send(retry, "json_object", timeout, user_id)
        value = validate_reply(unfence(text), self._model, task.schema, JSON_MODE_HINT)
        return Structured(value, usage + again)

    async def _send(
        self, task: StructuredTask[T], mode: Mode, timeout: float, user_id: str | None
    ) -> tuple[str, Usage]:
        optional: dict[str, Any] = {}
        if user_id:
            optional["safety_identifier"] = safety_identifier(user_id)
        if self._api == "chat":
            return await self._send_chat(task, mode, timeout, optional)
        return await self._send_responses(task, mode, timeout, optional)

    async def _send_responses(
        self, task: StructuredTask[T], mode: Mode, timeout: float, optional: dict[str, Any]
    ) -> tuple[str, Usage]:
        messages: list[EasyInputMessageParam] = [
            {"role": "user", "content": text} for text in task.messages
        ]
        text_config = cast(
            ResponseTextConfigParam,
            {"format": responses_format(mode, task.name, strict_schema(task.schema))},
        )
        if self._effort is not None:
            optional["reasoning"] = cast(Reasoning, {"effort": self._effort})
        return await self._post(
            self._client.responses, task, "responses",
            model=self._model,
            instructions=task.instructions,
            input=cast(Any, messages),
            text=text_config,
            store=False,  # docbot keeps its own record; nothing is retained at OpenAI
            max_output_tokens=self._max_output_tokens,
            timeout=timeout,
            **optional,
        )  # fmt: skip

    async def _send_chat(
        self, task: StructuredTask[T], mode: Mode, timeout: float, optional: dict[str, Any]
    ) -> tuple[str, Usage]:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": task.instructions}
        ]
        messages += [{"role": "user", "content": text} for text in task.messages]
        response_format = chat_format(mode, task.name, strict_schema(task.schema))
        if self._effort is not None:
            optional["reasoning_effort"] = self._effort
        # max_completion_tokens, not max_tokens: OpenAI's reasoning models reject the latter, and
        # local servers that do not know the former simply ignore it.
        return await self._post(
            self._client.chat.completions, task, "chat",
            model=self._model,
            messages=messages,
            response_format=cast(Any, response_format),
            store=False,
            max_completion_tokens=self._max_output_tokens,
            timeout=timeout,
            **optional,
        )  # fmt: skip

    async def _post(
        self, resource: Any, task: StructuredTask[T], api: API, **request: Any
    ) -> tuple[str, Usage]:
        """One request; with `task.on_text`, streamed (each text piece handed on as it comes),
        then read from its final event exactly like a whole reply."""
        read = response_text if api == "responses" else chat_text
        if task.on_text is None:
            raw = await resource.with_raw_response.create(**request)
            return read(raw.content, self._model, raw.headers.get("content-type", ""))
        reply = StreamedReply(api, task.on_text, self._model)
        if api == "chat":
            request["stream_options"] = {"include_usage": True}
        async with resource.with_streaming_response.create(stream=True, **request) as raw:
            kind = raw.headers.get("content-type", "")
            if "text/event-stream" not in kind:  # a server that ignores `stream`: read it whole
                return read(await raw.read(), self._model, kind)
            async for line in raw.iter_lines():
                reply.line(line)
        return read(reply.body(), self._model, "application/json")


class OpenAIGenerator:
    """Generator backed by an OpenAI (or OpenAI-compatible) model: GroundedResponse through
    OpenAIModel, whose options it takes (`structured` is that model, for the query rewrite)."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        model: str,
        *,
        clock: Clock | None = None,
        **options: Any,
    ) -> None:
        problems = strict_schema_problems(grounded_response_schema())
        if problems:
            raise DocbotError(
                "grounding/schema.py: GroundedResponse is not a valid OpenAI strict-mode schema: "
                + "; ".join(problems)
                + ". Fix the pydantic model so every field is required and has no default."
            )
        self._model = OpenAIModel(client, model, **options)
        self._clock = clock or SystemClock()  # used when a request brings no deadline

    @property
    def name(self) -> str:
        return self._model.name

    @property
    def structured(self) -> OpenAIModel:
        return self._model

    async def aclose(self) -> None:
        await self._model.aclose()

    async def generate(self, request: GenerationRequest) -> Generation:
        return await self.stream(request, None)

    async def stream(
        self, request: GenerationRequest, on_text: Callable[[str], None] | None
    ) -> Generation:
        """`generate`, streamed: each piece of the reply's text goes to `on_text` as it comes."""
        deadline = request.deadline or Deadline.unbounded(self._clock)
        turns = request.turns()
        task = StructuredTask(
            GroundedResponse, SCHEMA_NAME, request.prompt.instructions, turns, on_text
        )
        reply = await self._model.complete(task, deadline, request.user_id)
        return Generation(reply.value, reply.usage)


def safety_identifier(user_id: str) -> str:
    """A stable, non-reversible id for OpenAI's abuse monitoring; the Slack user id stays here."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:SAFETY_ID_HEX_CHARS]


@cache
def _strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    # The SDK's own helper, so the schema is exactly what its `parse()` helpers would send.
    return to_strict_json_schema(schema)


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The strict JSON schema of `schema` as sent (a fresh copy: callers may mutate it)."""
    return copy.deepcopy(_strict_schema(schema))


def grounded_response_schema() -> dict[str, Any]:
    """The strict JSON schema sent with every answer request."""
    return strict_schema(GroundedResponse)
