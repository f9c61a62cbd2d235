"""The words and blocks of an answer in progress: Slack's AI-app status line while docbot works,
and the pieces of a streamed reply (each verified claim as it comes, then sources and footer).

Pure functions, part of the renderer (answers.py owns single-post replies): the streamed blocks
are built by the same helpers as a single-post answer, so both escape and link the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.render.answers import claim_section, tail_blocks
from bot.render.text import ELLIPSIS, context, count
from grounding.answer import Answer, Claim, Source
from grounding.progress import AnswerEvent, Checking, Reading, Searching, Verified
from retrieval.config import FeedbackConfig

# Slack shows at most this many loading messages and cuts long ones; collection lists are long.
STATUS_CHARS = 120


@dataclass(frozen=True, slots=True)
class Status:
    """assistant.threads.setStatus arguments: `status` and the `loading_messages` it rotates."""

    text: str
    loading_messages: tuple[str, ...] = ()


WORKING = Status("is working on it…", ("Reading your question…",))
CLEARED = Status("")  # setStatus with an empty status removes it


def status_for(event: AnswerEvent) -> Status | None:
    """The status line for a stage of the pipeline; None when the stage changes nothing shown."""
    match event:
        case Searching(collections=names):
            where = ", ".join(names) if names else "the docs"
            return _status(f"Searching {where}{ELLIPSIS}")
        case Reading(passages=n):
            return _status(f"Reading {count(n, 'passage')}{ELLIPSIS}")
        case Checking(claims=n):
            return _status(f"Checking {count(n, 'claim')}{ELLIPSIS}")
        case Verified():
            return None


def _status(text: str) -> Status:
    if len(text) > STATUS_CHARS:
        text = text[: STATUS_CHARS - 2].rstrip(" ,") + ELLIPSIS
    return Status(text, (text,))


def streamed_claim(claim: Claim, sources: Sequence[Source]) -> dict[str, Any]:
    """The section block appended for one verified claim; `sources` are all numbered so far
    (its citation markers link to them). Always a bullet: how many follow is not known yet."""
    return claim_section(claim, sources, bullet=True)


def stream_tail(answer: Answer, feedback: FeedbackConfig) -> tuple[dict[str, Any], ...]:
    """The blocks that end a streamed answer: the unverified-channel note, sources, footer."""
    return tail_blocks(answer, feedback)


def more_claims_note(hidden: int) -> dict[str, Any]:
    """Ends a streamed answer that had more verified claims than one message can hold."""
    return context(f"{ELLIPSIS} {count(hidden, 'more claim')} not shown: the answer was too long.")
