"""How the fake Slack keeps a streamed message (chat.startStream, appendStream, stopStream):
started in a thread, its chunks' blocks and markdown appended, and, when stopped, the final
blocks and metadata added; no append after the stop."""

from __future__ import annotations

from typing import Any


def streamed(method: str, params: dict[str, Any], message: dict[str, Any] | None) -> dict[str, Any]:
    """Slack's answer to the stream call `method` with `params` on `message` (for a start, the
    new message: its user, bot_id and ts, already in the channel; None when there is none)."""
    if method == "chat.startStream":
        if message is None or not params.get("thread_ts"):
            return {"ok": False, "error": "invalid_arguments"}
        message.update(
            type="message", thread_ts=params["thread_ts"], text="", blocks=[],
            streaming_state="in_progress",
        )  # fmt: skip
    elif message is None:
        return {"ok": False, "error": "message_not_found"}
    elif message.get("streaming_state") != "in_progress":
        return {"ok": False, "error": "message_not_in_streaming_state"}
    for chunk in params.get("chunks") or ():
        if chunk.get("type") == "blocks":
            message["blocks"].extend(chunk.get("blocks") or ())
        elif chunk.get("type") == "markdown_text":
            message["text"] += str(chunk.get("text", ""))
    message["text"] += str(params.get("markdown_text") or "")
    if method == "chat.stopStream":
        message["blocks"].extend(params.get("blocks") or ())
        if params.get("metadata"):
            message["metadata"] = params["metadata"]
        message["streaming_state"] = "completed"
    channel = params.get("channel")
    return {"ok": True, "channel": channel, "ts": message["ts"], "message": dict(message)}
