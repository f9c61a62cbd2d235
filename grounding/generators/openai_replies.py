"""Reading a model server's reply: the parts of a Responses or Chat Completions body docbot uses.

pydantic at the boundary: a body that is not JSON, or JSON of another shape (no `output`, a string
where a list belongs, `choices: []`), becomes a GenerationError naming what was wrong, never an
AttributeError. Only the fields docbot reads are declared, so servers that omit the rest (Ollama,
vLLM, llama.cpp) are still read.
"""

from __future__ import annotations

from typing import TypeVar

import pydantic
from pydantic import ConfigDict

from grounding.answer import Usage
from grounding.generators.base import GenerationError

_HINT = "check that OPENAI_BASE_URL is the server's API address (ending in /v1) and answer.api"


class _Body(pydantic.BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


_B = TypeVar("_B", bound=_Body)
_M = TypeVar("_M", bound=pydantic.BaseModel)


class _Part(_Body):
    type: str
    text: str | None = None
    refusal: str | None = None

    @pydantic.model_validator(mode="after")
    def _text_where_promised(self) -> _Part:
        if self.type == "output_text" and self.text is None:
            raise ValueError("an output_text part has no `text`")
        return self


class _Item(_Body):
    type: str
    phase: str | None = None
    content: list[_Part] | None = None

    @pydantic.model_validator(mode="after")
    def _message_has_content(self) -> _Item:
        if self.type == "message" and self.content is None:
            raise ValueError("a message item has no `content` list")
        return self


class _IncompleteDetails(_Body):
    reason: str | None = None


class _Failure(_Body):
    message: str | None = None


class _ResponsesUsage(_Body):
    input_tokens: int | None = None
    output_tokens: int | None = None


class _Response(_Body):
    output: list[_Item]
    status: str | None = None
    incomplete_details: _IncompleteDetails | None = None
    error: _Failure | None = None
    usage: _ResponsesUsage | None = None


class _ChatMessage(_Body):
    content: str | None = None
    refusal: str | None = None


class _Choice(_Body):
    message: _ChatMessage
    finish_reason: str | None = None


class _ChatUsage(_Body):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _Completion(_Body):
    choices: list[_Choice]
    usage: _ChatUsage | None = None


def response_text(body: bytes, model: str, content_type: str = "") -> tuple[str, Usage]:
    """Refusal, then truncation, then the text: a cut-off reply is `incomplete`, not `invalid`."""
    response = _parse(_Response, body, model, content_type, "a Responses API response")
    for item in response.output:
        if item.type == "message" and any(p.type == "refusal" for p in item.content or ()):
            raise _refused(model)
    if response.status == "incomplete":
        details = response.incomplete_details
        raise _incomplete(model, (details.reason if details else None) or "unknown")
    if response.status == "failed":
        error = (response.error.message if response.error else None) or "no detail given"
        raise GenerationError("unavailable", f"{model} failed to respond: {error}")
    if response.status not in (None, "completed"):
        raise GenerationError("invalid", f"{model} returned a {response.status} response")
    usage = response.usage or _ResponsesUsage()
    return _final_text(response), Usage(usage.input_tokens or 0, usage.output_tokens or 0)


def _final_text(response: _Response) -> str:
    # Models that narrate emit `commentary` messages before the answer; only the final answer
    # (or a message without a phase, as older models and SDKs have) carries the JSON, as in the SDK.
    return "".join(
        part.text or ""
        for item in response.output
        if item.type == "message" and item.phase in (None, "final_answer")
        for part in item.content or ()
        if part.type == "output_text"
    )


def chat_text(body: bytes, model: str, content_type: str = "") -> tuple[str, Usage]:
    completion = _parse(_Completion, body, model, content_type, "a chat completion")
    if not completion.choices:
        raise GenerationError("invalid", f"{model} returned no choices")
    choice = completion.choices[0]
    if choice.message.refusal:
        raise _refused(model)
    if choice.finish_reason in ("length", "content_filter"):
        reason = "max_output_tokens" if choice.finish_reason == "length" else "content_filter"
        raise _incomplete(model, reason)
    usage = completion.usage or _ChatUsage()
    content = choice.message.content or ""
    return content, Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)


def _parse(kind: type[_B], body: bytes, model: str, content_type: str, what: str) -> _B:
    """The body as `kind`; the error names the first problem, never the body (it may quote the
    prompt, and so the evidence, which never reaches the log)."""
    try:
        return kind.model_validate_json(body)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            shape = f"{len(body)} bytes" + (f" of {content_type}" if content_type else "")
            problem = f"the body is not JSON ({shape})"
        else:
            where = ".".join(str(part) for part in first["loc"]) or "the top level"
            problem = f"at {where}: {first['msg']}"
        raise GenerationError(
            "invalid", f"{model}'s server sent a reply that is not {what}: {problem}; {_HINT}"
        ) from None


def _refused(model: str) -> GenerationError:
    # The refusal text is model output that may quote the evidence or the question, and this
    # message is logged: documents never reach the log (canary rule), so only the fact is kept.
    return GenerationError("refusal", f"{model} refused to answer (its refusal text is not kept)")


def _incomplete(model: str, reason: str) -> GenerationError:
    if reason == "content_filter":
        return GenerationError("refusal", f"{model}'s reply was stopped by its content filter")
    return GenerationError(
        "incomplete",
        f"{model}'s reply was cut off ({reason}) before the JSON answer was complete; "
        "ask a narrower question, or raise the generator's max_output_tokens",
    )


# What to do about a reply that does not match the schema, by how the schema was sent.
STRICT_HINT = (
    "the server may not enforce strict JSON schemas: set answer.response_format to auto or "
    "json_object"
)
JSON_MODE_HINT = (
    "it was asked once more with the problem named, in JSON mode (the schema in the "
    "instructions); the model may be too small to follow it: try a larger answer.model"
)


def parse_reply(text: str, model: str, schema: type[_M]) -> _M | str:
    """The model's output text as `schema`, or what is wrong with it (the first problem)."""
    if not text.strip():
        return f"{model} returned no output text"
    try:
        return schema.model_validate_json(text)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        return (
            f"{model}'s reply does not match the {schema.__name__} schema at {where}: "
            f"{first['msg']} ({exc.error_count()} error(s))"
        )


def validate_reply(text: str, model: str, schema: type[_M], hint: str = STRICT_HINT) -> _M:
    """The model's output text as `schema`; GenerationError `invalid` naming the first problem
    and `hint`, what the admin can do about it."""
    parsed = parse_reply(text, model, schema)
    if isinstance(parsed, str):
        raise GenerationError("invalid", f"{parsed}; {hint}")
    return parsed
