"""The fake OpenAI server's streamed replies (`stream: true`): server-sent events shaped like the
real APIs', the answer's text in small pieces spread over the reply's `pace` seconds."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

PIECE_CHARS = 12  # about three tokens a delta, as models stream


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


async def stream_reply(
    request: web.Request, endpoint: str, whole: dict[str, Any], pace: float
) -> web.StreamResponse:
    """`whole` (the body the fake would have sent at once) as the API's event stream."""
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    await response.prepare(request)
    events = _responses_events(whole) if endpoint == "responses" else _chat_chunks(whole)
    deltas = sum(1 for event in events if _is_delta(event))
    try:
        for event in events:
            if _is_delta(event) and pace:
                await asyncio.sleep(pace / deltas)
            await response.write(_sse(event, endpoint))
        if endpoint == "chat":
            await response.write(b"data: [DONE]\n\n")
    except ConnectionError:
        pass  # the client gave up
    return response


def _is_delta(event: dict[str, Any]) -> bool:
    if event.get("type") == "response.output_text.delta":
        return True
    return any((c.get("delta") or {}).get("content") for c in event.get("choices") or ())


def _sse(event: dict[str, Any], endpoint: str) -> bytes:
    name = f"event: {event['type']}\n" if endpoint == "responses" else ""
    return f"{name}data: {json.dumps(event)}\n\n".encode()


def _responses_events(whole: dict[str, Any]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "response.created", "response": {**whole,
                                     "status": "in_progress", "output": []}}]  # fmt: skip
    for index, item in enumerate(whole["output"]):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        for part in item.get("content") or ():
            for delta in pieces(part.get("text") or "") if part["type"] == "output_text" else ():
                events.append({
                    "type": "response.output_text.delta", "item_id": item["id"],
                    "output_index": index, "content_index": 0, "delta": delta,
                })  # fmt: skip
    done = "response.incomplete" if whole["status"] == "incomplete" else "response.completed"
    events.append({"type": done, "response": whole})
    return events


def _chat_chunks(whole: dict[str, Any]) -> list[dict[str, Any]]:
    choice = whole["choices"][0]
    message = choice["message"]
    head = {"id": whole["id"], "object": "chat.completion.chunk", "created": whole["created"],
            "model": whole["model"]}  # fmt: skip
    chunks = [{**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}]
    if message.get("refusal"):
        chunks.append({**head, "choices": [{"index": 0, "delta": {"refusal": message["refusal"]}}]})
    for delta in pieces(message.get("content") or "") if message.get("content") else ():
        chunks.append({**head, "choices": [{"index": 0, "delta": {"content": delta}}]})
    finish = {"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}
    chunks.append({**head, "choices": [finish]})
    chunks.append({**head, "choices": [], "usage": whole["usage"]})
    return chunks
