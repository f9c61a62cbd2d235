"""The openai SDK's exceptions as docbot's GenerationError: what went wrong and what to do.

One of the two modules that import `openai` (with openai_gen.py, whose calls raise these).
"""

from __future__ import annotations

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
            f"cannot reach the model server for {model}: {clip(str(exc))}; check OPENAI_BASE_URL",
        )
    if isinstance(exc, openai.APIStatusError):
        return status_error(exc.status_code, exc.code, server_message(exc), model)
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
