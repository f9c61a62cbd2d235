"""The openai SDK's exceptions as docbot's GenerationError: what went wrong and what to do.

One of the two modules that import `openai` (with openai_gen.py, whose calls raise these).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping

import openai

from grounding.generators.base import GenerationError
from grounding.generators.model_errors import status_error
from grounding.generators.redaction import clip


def translate_openai_error(exc: openai.OpenAIError, model: str) -> GenerationError:
    """One SDK failure as a GenerationError that says what to do (timeouts are the caller's)."""
    if isinstance(exc, openai.APIConnectionError):
        return GenerationError(
            "unavailable",
            f"cannot reach the model server for {model} at {_address(str(exc.request.url))} "
            f"({why_unreachable(exc)}); check OPENAI_BASE_URL",
        )
    if isinstance(exc, openai.APIStatusError):
        url = _address(str(exc.response.request.url))
        return status_error(exc.status_code, exc.code, server_message(exc), model, url=url)
    if isinstance(exc, openai.APIResponseValidationError):
        return GenerationError(
            "invalid", f"{model}'s server sent a malformed reply: {clip(str(exc))}"
        )
    return GenerationError("unavailable", f"calling {model} failed: {clip(str(exc))}")


def server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    message = exc.message
    if isinstance(body, Mapping) and isinstance(body.get("message"), str) and body["message"]:
        message = body["message"]
    return clip(message)


def why_unreachable(exc: BaseException) -> str:
    """What the SDK's "Connection error." was underneath, in words: the socket's own reason
    ("connection refused", "cannot resolve the host name"), else the transport's message."""
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen and len(seen) < 10:
        seen.append(cause)
        if isinstance(cause, socket.gaierror):
            return "cannot resolve the host name"
        if isinstance(cause, OSError) and isinstance(cause.errno, int) and cause.errno > 0:
            return os.strerror(cause.errno).lower()
        cause = cause.__cause__ or cause.__context__
    inner = [str(e) for e in seen[1:] if str(e)]
    return clip(inner[0]) if inner else "connection failed"


def _address(url: str) -> str:
    """The URL a call went to, without a user, password, query or fragment (never logged)."""
    scheme, _, rest = url.partition("://")
    netloc, slash, path = rest.partition("/")
    path = f"{slash}{path}".partition("?")[0].partition("#")[0]
    return f"{scheme}://{netloc.rpartition('@')[2]}{path}"
