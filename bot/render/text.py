"""The pieces every docbot message is built of: the Message value, Slack mrkdwn escaping, safe
links, text objects and blocks, and clipping text to Slack's limits. Pure functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FALLBACK_CHARS = 3_000
ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Message:
    text: str  # the notification / fallback text; never empty
    blocks: tuple[dict[str, Any], ...]


_URL_ESCAPES = str.maketrans(
    {"|": "%7C", "<": "%3C", ">": "%3E", " ": "%20", "\t": "%09", "\n": None, "\r": None}
)


def escape(text: str) -> str:
    """Slack mrkdwn escaping: `&`, `<` and `>` lose their control meaning (`&` first)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def safe_url(url: str | None) -> str | None:
    """A URL fit to go inside `<url|label>`, or None when it is not an http(s) link.

    `|` and `>` would end the URL early and let the rest forge a label or a new link, so they
    (and `<` and whitespace) are percent-encoded; `&` is entity-escaped as Slack expects.
    """
    if not url or not url.startswith(("https://", "http://")):
        return None
    return url.translate(_URL_ESCAPES).replace("&", "&amp;")


def post_kwargs(message: Message) -> dict[str, Any]:
    """The arguments for `chat.postMessage` / `chat.update` (besides channel and thread)."""
    return {
        "text": message.text,
        "blocks": [dict(block) for block in message.blocks],
        "unfurl_links": False,
        "unfurl_media": False,
    }


def safe_cut(text: str, limit: int) -> int:
    """A cut at or before `limit` that splits neither a `<link|label>` nor an `&amp;` entity."""
    cut = limit
    opening = text.rfind("<", 0, cut)
    if opening > 0 and text.find(">", opening, cut) == -1:
        cut = opening
    ampersand = text.rfind("&", max(0, cut - 5), cut)
    if ampersand > 0 and ";" not in text[ampersand:cut]:
        cut = ampersand
    return cut


def clip_escaped(text: str, limit: int) -> str:
    """Clip escaped text without leaving half an entity behind."""
    if len(text) <= limit:
        return text
    return text[: safe_cut(text, limit - 1)].rstrip() + ELLIPSIS


def plain(text: str) -> str:
    return clip(" ".join(text.split()), FALLBACK_CHARS)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + ELLIPSIS


def mrkdwn(text: str) -> dict[str, Any]:
    """A mrkdwn text object, `text` already escaped. `verbatim` stops Slack from linking bare
    URLs and channel names by itself, so the only links are the `<url|label>`s written here
    from `Source.url` (plain_text objects are never linked and take no `verbatim`)."""
    return {"type": "mrkdwn", "text": text, "verbatim": True}


def plain_text(text: str) -> dict[str, Any]:
    """A plain_text object (button labels, modal titles): Slack shows it as typed, links nothing."""
    return {"type": "plain_text", "text": text, "emoji": True}


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": mrkdwn(text)}


def context(text: str) -> dict[str, Any]:
    return {"type": "context", "elements": [mrkdwn(text)]}


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
