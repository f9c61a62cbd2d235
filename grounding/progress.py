"""What the pipeline reports while it works on one answer: pure values, no wording.

The bot turns them into Slack's status line and the streamed reply (bot/render/live.py owns the
words). A `Verified` claim has passed verification and will never be taken back: the pipeline
reports one only when it is final, so whatever shows it shows nothing unverified.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from grounding.answer import Claim, Source


@dataclass(frozen=True, slots=True)
class Searching:
    collections: tuple[str, ...]  # the scope's collections, in scope order


@dataclass(frozen=True, slots=True)
class Reading:
    passages: int  # evidence items handed to the generator


@dataclass(frozen=True, slots=True)
class Checking:
    claims: int  # claims made so far (all of them, once generation is done)


@dataclass(frozen=True, slots=True)
class Verified:
    """One claim that passed verification, numbered as it appears in the final answer.

    `sources` are the sources this claim introduced (first cited here); earlier ones came with
    earlier claims."""

    claim: Claim
    sources: tuple[Source, ...]


AnswerEvent = Searching | Reading | Checking | Verified

# Called synchronously from the pipeline, in order; must not block (queue and return).
Report = Callable[[AnswerEvent], None]


def ignore(event: AnswerEvent) -> None:
    """The Report of a caller that does not watch (the CLI, batch benchmarks)."""
