"""Which response_format a model server gets, and what docbot learns when it rejects strict schemas.

Pure and SDK-free. OpenAI and current vLLM, Ollama and llama.cpp accept `json_schema`; older and
other OpenAI-compatible servers answer it in one of three ways, each seen in the wild:
- a 400 naming the field: vLLM before structured outputs ("Input should be 'text' or
  'json_object'" at body.response_format.type), LM Studio ("'response_format.type' must be ...");
- a 422 from the request validator of a FastAPI-based server (`{"detail": [...]}`);
- a 500 that is not transient: llama.cpp forks ("response_format type must be one of "text" or
  "json_object", but got: json_schema", type server_error);
- a 200 with free text: Ollama before 0.5 ignored json_schema and wrote prose or fenced JSON.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from typing import Any, Literal

Mode = Literal["json_schema", "json_object"]

# Statuses a server answers an unsupported response_format with (500: llama.cpp); the message
# must name the field too, so an overloaded server's 500 is still retried as one.
SCHEMA_REJECTION_STATUSES = frozenset({400, 415, 422, 500, 501})
_NAMES_THE_FORMAT = re.compile(r"response_format|json_schema|text\.format|structured output", re.I)
_FENCED = re.compile(r"\A\s*```[A-Za-z]*\s*\n(?P<body>.*?)\n?```\s*\Z", re.S)


def rejects_json_schema(status: int, message: str) -> bool:
    """Whether an HTTP error says the server does not take `response_format: json_schema`."""
    return status in SCHEMA_REJECTION_STATUSES and bool(_NAMES_THE_FORMAT.search(message))


def chat_format(mode: Mode, name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """Chat Completions' `response_format` for `mode`."""
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def responses_format(mode: Mode, name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The Responses API's `text.format` for `mode`."""
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "name": name, "schema": schema, "strict": True}


def ignored_schema(text: str, *, first: bool) -> bool:
    """Whether a json_schema reply that did not validate shows the server ignored the schema.

    Text that is not JSON at all does, whenever it comes: a server that enforces the schema never
    sends prose. JSON of the wrong shape tells only on a server's first reply; once json_schema
    has worked there, it is the model's failure. An empty reply is no sign either way."""
    if not text.strip():
        return False
    try:
        json.loads(text)
    except ValueError:
        return True
    return first


def json_object_instructions(instructions: str, schema: Mapping[str, Any]) -> str:
    """The instructions for JSON mode: the schema the server no longer enforces, spelled out.

    OpenAI's JSON mode also requires the word JSON in the messages; this says it."""
    return (
        f"{instructions}\n"
        "Reply with one JSON object and nothing else (no prose, no code fence). It must match "
        "this JSON schema exactly: every property is required and no other property is allowed.\n"
        f"{json.dumps(schema, separators=(',', ':'), sort_keys=True)}\n"
    )


def json_object_correction(problem: str) -> str:
    """The one retry's note after a JSON-mode reply that did not validate."""
    return (
        f"Your previous reply could not be used: {problem}. Reply again with only the JSON "
        "object, matching the schema given in the instructions."
    )


def unfence(text: str) -> str:
    """A reply wrapped in one Markdown code fence (```json ... ```), unwrapped; else as it is."""
    match = _FENCED.match(text)
    return match.group("body") if match else text


class FormatMemory:
    """What each server was found to accept, for the life of the process (thread-safe).

    Keyed by (base URL, model, api): a reload of docbot.yml builds a new generator but talks to
    the same server, so it does not pay the detection again."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, str, str], Mode] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, str]) -> Mode | None:
        with self._lock:
            return self._found.get(key)

    def remember(self, key: tuple[str, str, str], mode: Mode) -> None:
        with self._lock:
            self._found[key] = mode


PROCESS_MEMORY = FormatMemory()
