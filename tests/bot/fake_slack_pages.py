"""How the fake Slack lists messages (conversations.replies and .history): metadata only when
asked for, and in pages as Slack does, `limit` at a time (fewer when the fake's page size says
so), each naming the cursor of the next."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def listed(
    messages: Iterable[dict[str, Any]], params: dict[str, Any], page_size: int | None
) -> dict[str, Any]:
    """One page of `messages` for a call with `params` (`include_all_metadata`, `limit`,
    `cursor`), the answer Slack gives."""
    with_metadata = str(params.get("include_all_metadata", "")).lower() in ("1", "true")
    shown = [m if with_metadata else {k: v for k, v in m.items() if k != "metadata"}
             for m in messages]  # fmt: skip
    start = int(params.get("cursor") or 0)
    sizes = [n for n in (int(params.get("limit") or 0), page_size or 0) if n > 0]
    end = start + min(sizes) if sizes else len(shown)
    more = end < len(shown)
    return {
        "ok": True, "messages": [dict(m) for m in shown[start:end]], "has_more": more,
        "response_metadata": {"next_cursor": str(end) if more else ""},
    }  # fmt: skip
