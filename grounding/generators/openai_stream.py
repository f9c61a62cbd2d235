"""Reading a streamed reply (`stream: true`, server-sent events) from a Responses or Chat
Completions server: each piece of the answer's text handed on as it arrives, and, at the end, the
reply as the one body openai_replies reads, so a streamed reply is checked like a whole one.

Pure: lines in, text pieces and a body out; the SDK call itself is openai_gen's.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from grounding.generators.base import GenerationError
from grounding.generators.redaction import clip

# Response events that end a Responses stream, each carrying the whole response object.
_FINAL = ("response.completed", "response.incomplete", "response.failed")


class StreamedReply:
    """Feed it the stream's lines in order (`line`); `body()` once the stream has ended."""

    def __init__(
        self, api: Literal["responses", "chat"], on_text: Callable[[str], None], model: str
    ) -> None:
        self._api = api
        self._on_text = on_text
        self._model = model
        self._commentary: set[str] = set()  # item ids of narration, not the answer
        self._final: dict[str, Any] | None = None
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None

    def line(self, line: str) -> None:
        if not line.startswith("data:"):
            return  # `event:` names repeat the data's `type`; blank lines end an event
        data = line[len("data:") :].strip()
        if not data or data == "[DONE]":
            return
        try:
            event = json.loads(data)
        except ValueError:
            raise self._broken("an event that is not JSON") from None
        if not isinstance(event, dict):
            raise self._broken("an event that is not a JSON object")
        if self._api == "responses":
            self._response_event(event)
        else:
            self._chat_chunk(event)

    def body(self) -> bytes:
        """The reply as a whole body (Response / ChatCompletion JSON) for openai_replies."""
        if self._api == "responses":
            if self._final is None:
                raise GenerationError(
                    "incomplete", f"{self._model}'s stream ended before the response was complete"
                )
            return json.dumps(self._final).encode()
        message = {"content": "".join(self._text), "refusal": "".join(self._refusal) or None}
        choice = {"message": message, "finish_reason": self._finish}
        return json.dumps({"choices": [choice], "usage": self._usage}).encode()

    def _response_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "response.output_item.added":
            item = event.get("item") or {}
            if item.get("phase") == "commentary":
                self._commentary.add(str(item.get("id")))
        elif kind == "response.output_text.delta":
            if str(event.get("item_id")) not in self._commentary:
                self._on_text(str(event.get("delta", "")))
        elif kind in _FINAL and isinstance(event.get("response"), dict):
            self._final = event["response"]
        elif kind == "error":
            detail = clip(str(event.get("message") or event.get("code") or "no detail given"))
            raise GenerationError(
                "unavailable", f"{self._model}'s server failed mid-stream: {detail}"
            )

    def _chat_chunk(self, chunk: dict[str, Any]) -> None:
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        for choice in (chunk.get("choices") or [])[:1]:
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str) and delta["content"]:
                self._text.append(delta["content"])
                self._on_text(delta["content"])
            if isinstance(delta.get("refusal"), str):
                self._refusal.append(delta["refusal"])
            self._finish = choice.get("finish_reason") or self._finish

    def _broken(self, what: str) -> GenerationError:
        return GenerationError(
            "invalid", f"{self._model}'s server sent {what} in its stream; check OPENAI_BASE_URL"
        )
