"""Every word docbot shows in Slack, by surface: answers (answers.py), and the pieces they are
built of (text.py). Lower layers return reason codes; only this package turns them into text.

Pure functions. All text from documents, models or users is escaped here, every mrkdwn text
object is `verbatim`, and links come only from `Source.url`, so a reply can never ping a
channel, mention someone, forge a link or have Slack link a bare URL from a document.
"""

from bot.render.answers import (
    MAX_BLOCKS,
    NO_ACCESS,
    PUBLIC_ONLY,
    SECTION_CHARS,
    UNVERIFIED,
    quotes_to_show,
    render_answer,
    render_error,
    render_help,
    render_input_error,
)
from bot.render.text import Message, escape, mrkdwn, post_kwargs, safe_url

__all__ = [
    "MAX_BLOCKS",
    "NO_ACCESS",
    "PUBLIC_ONLY",
    "SECTION_CHARS",
    "UNVERIFIED",
    "Message",
    "escape",
    "mrkdwn",
    "post_kwargs",
    "quotes_to_show",
    "render_answer",
    "render_error",
    "render_help",
    "render_input_error",
    "safe_url",
]
