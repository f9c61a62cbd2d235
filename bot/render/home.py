"""App Home wording: what docbot is, what this person's DMs with it may read, how to ask, and
their recent questions with what became of each; and the suggested prompts of the messages tab.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.render.no_answer import NO_ACCESS, UNVERIFIED
from bot.render.text import clip, clip_escaped, context, escape, section

RECENT_SHOWN = 10
QUESTION_CHARS = 150
PROMPTS_SHOWN = 4  # Slack shows at most four suggested prompts
PROMPT_TITLE_CHARS = 75

# Answer status (or UNPOSTED) -> how the person's question ended.
STATUS_LABELS = {
    "answered": ":white_check_mark: answered",
    "not_found": ":mag: no verified answer found",
    "refused": ":no_entry: not answered here (no access)",
    "error": ":warning: failed",
    "unposted": ":warning: answered, but the reply could not be posted",
}


@dataclass(frozen=True, slots=True)
class RecentQuestion:
    question: str
    channel: str  # a channel ID, shown as Slack's own channel link
    status: str  # a STATUS_LABELS key
    asked: str  # ISO 8601


def home_view(
    collections: Sequence[str], recent: Sequence[RecentQuestion], *, unverified: bool
) -> dict[str, Any]:
    """The Home tab, for views.publish."""
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "docbot"}},
        section(
            "I answer questions from your team's documentation, and every claim I make links "
            "to the file, section and lines it comes from. When the docs do not say, I say so."
        ),
        section(_readable(collections, unverified=unverified)),
        section(
            "*How to ask*\n• In a channel: `@docbot how do I roll back a deploy?`, answered in "
            "the thread.\n• Anywhere: `/docbot how do I roll back a deploy?`, answered to you "
            "only.\n• On a message: ⋯ → *Ask docbot about this*.\n• Or write to me in the "
            "*Messages* tab."
        ),
        {"type": "divider"},
        section("*Your recent questions*"),
    ]
    if not recent:
        blocks.append(context("You have not asked me anything yet."))
    for item in recent[:RECENT_SHOWN]:
        question = clip_escaped(escape(" ".join(item.question.split())), QUESTION_CHARS)
        where = f"<#{item.channel}>" if item.channel[:1] in ("C", "G") else "a direct message"
        label = STATUS_LABELS.get(item.status, escape(item.status))
        blocks.append(section(f"{question}\n{label} · in {where} · {escape(item.asked[:10])}"))
    return {"type": "home", "blocks": blocks}


def _readable(collections: Sequence[str], *, unverified: bool) -> str:
    if collections:
        names = ", ".join(f"*{escape(name)}*" for name in collections)
        return clip_escaped(f"In a direct message with me, I can read: {names}.", 2_900)
    return UNVERIFIED if unverified else NO_ACCESS


def suggested_prompts(headings: Sequence[str]) -> list[dict[str, str]]:
    """The messages tab's suggested prompts: one question per top heading of the readable docs."""
    prompts = []
    for heading in headings[:PROMPTS_SHOWN]:
        topic = " ".join(heading.split())
        message = f"What do the docs say about {topic}?"
        prompts.append({"title": clip(topic, PROMPT_TITLE_CHARS), "message": message})
    return prompts


PROMPTS_TITLE = "Ask about your docs"
