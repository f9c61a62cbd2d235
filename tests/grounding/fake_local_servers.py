"""How local OpenAI-compatible servers that do not take `response_format: json_schema` answer it.

Each is a FakeOpenAI `respond` hook: a request asking for json_schema gets that server's answer;
any other request (json_object) is left to the fake's script. The bodies follow what each server
sends (error shapes from their sources and issue reports):
- vLLM before structured outputs: its pydantic request model allows only text/json_object, and
  its validation handler answers 400 with vLLM's ErrorResponse (`object: error`, no `error` key);
- a FastAPI server with the default validation handler: 422 `{"detail": [...]}`;
- llama.cpp (and forks such as ik_llama.cpp): 500, type server_error, naming response_format;
- Ollama before 0.5: ignores json_schema and lets the model write prose.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from tests.grounding.fake_openai import Recorded, Reply, raw_body, raw_text

_LITERAL_ERROR = {
    "type": "literal_error",
    "loc": ["body", "response_format", "type"],
    "msg": "Input should be 'text' or 'json_object'",
    "input": "json_schema",
    "ctx": {"expected": "'text' or 'json_object'"},
}

REJECTIONS: Mapping[str, Reply] = {
    "vllm": raw_body(
        json.dumps(
            {
                "object": "error",
                "message": str([_LITERAL_ERROR]),
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
        ),
        status=400,
    ),
    "fastapi": raw_body(json.dumps({"detail": [_LITERAL_ERROR]}), status=422),
    "llama.cpp": raw_body(
        json.dumps(
            {
                "error": {
                    "code": 500,
                    "message": 'response_format type must be one of "text" or "json_object", '
                    "but got: json_schema",
                    "type": "server_error",
                }
            }
        ),
        status=500,
    ),
    "ollama": raw_text(
        "Sure! By default, timeouts are five seconds. Let me know if you need more."
    ),
}
SERVERS = tuple(REJECTIONS)


def asks_json_schema(body: Mapping[str, Any]) -> bool:
    """Whether a request (either API) asks for a strict schema."""
    chat = body.get("response_format") or {}
    responses = (body.get("text") or {}).get("format") or {}
    return "json_schema" in (chat.get("type"), responses.get("type"))


def asks_json_object(body: Mapping[str, Any]) -> bool:
    chat = body.get("response_format") or {}
    responses = (body.get("text") or {}).get("format") or {}
    return "json_object" in (chat.get("type"), responses.get("type"))


def without_json_schema(server: str) -> Callable[[Recorded], Reply | None]:
    """The `respond` hook of a server that does not take json_schema, answering as `server` does."""

    def respond(recorded: Recorded) -> Reply | None:
        return REJECTIONS[server] if asks_json_schema(recorded.body) else None

    return respond
