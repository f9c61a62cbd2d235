"""The store contract: small seams split by purpose (event ledger, in event_ledger.py; answer
log; feedback; assistant threads).

Every operation is one atomic step, so SQLite now and PostgreSQL next can both implement it and
pass one shared test suite (tests/bot/store/). The Slack app depends on `AnswerStore`, all three.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.store.event_ledger import (
    EventKey,
    EventLedger,
)
from grounding.answer import Answer
from grounding.answer_json import answer_from_dict
from retrieval.config import ESCALATION_LEASE_SECONDS as ESCALATION_LEASE_SECONDS
from retrieval.errors import DocbotError

FEEDBACK_KINDS = ("wrong", "helpful")
# Where a mark came from: an emoji reaction, or the feedback buttons under an answer (one per
# person and answer, so the `emoji` of a button mark is BUTTON_MARK).
MARK_SOURCES = ("reaction", "button")
BUTTON_MARK = ""
# Where a reason came from: a thread reply after a wrong-mark, or the thumbs-down modal.
REASON_SOURCES = ("thread", "modal")
# What the modal asks was wrong (the renderer owns their wording).
REASON_CATEGORIES = ("wrong", "outdated", "incomplete", "wrong_channel")
# Slack retries a delivery within minutes; three days of claims is ample and keeps the ledger
# small. Older claims are pruned on open and then at most once an hour.
EVENT_RETENTION_SECONDS = 3 * 24 * 3600
PRUNE_EVERY_SECONDS = 3600
# After a :x: docbot invites a reason; a reply a day later is more likely a new question.
REASON_WINDOW_SECONDS = 24 * 3600
# How long a claim stays its owner's without renewal. Slack retries a delivery about a minute
# after the first try (then after five): a crashed owner's lease must have lapsed by then, so the
# retry is answered. A live owner renews every LEASE_SECONDS / 3 (bot/leases.py) for as long as
# its answer takes, so a slow answer (the model's ~45 s deadline, a Retry-After on the post) is
# never taken over; only an owner that missed three renewals in a row, i.e. is dead or frozen,
# loses it.
LEASE_SECONDS = 30.0
UNPOSTED = "unposted:"  # reply_ts prefix of an answer whose reply could not be posted


class StoreError(DocbotError):
    """The answer store cannot be opened, read or written."""


class StoreUnavailable(StoreError):
    """The store's server cannot be reached right now (a lost connection, a restart): the
    operation did not happen, and may succeed once the server is back. The store logs the outage
    once, when it begins, and once when it ends; callers need not log it per event."""


# --- answer log --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AnswerRecord:
    team: str
    channel: str
    thread_ts: str  # the thread the reply is in
    reply_ts: str  # docbot's reply message (UNPOSTED + question ts when it could not post)
    question_ts: str  # the message that asked
    asker: str
    question: str
    answer: Answer  # stored as its answer object (Answer.to_dict), read back as an Answer
    created: str  # ISO 8601
    id: int | None = None


def answer_json(answer: Answer) -> str:
    """How both backends store an answer: design.md's answer object, as JSON text."""
    return json.dumps(answer.to_dict(), ensure_ascii=False, sort_keys=True)


def read_answer(text: str, where: str) -> Answer:
    """A stored answer read back; a StoreError naming `where` when it is not one."""
    try:
        return answer_from_dict(json.loads(text))
    except ValueError as exc:  # not JSON, or not an answer object
        raise StoreError(
            f"{where}: a stored answer cannot be read ({exc}). The store is damaged or was "
            "written by something other than docbot."
        ) from None


def staged_reply_ts(question_ts: str) -> str:
    """The reply_ts of an answer to `question_ts` whose reply is not (or not known to be) in
    Slack: UNPOSTED + the question's ts, which no Slack ts equals, unique per question."""
    return f"{UNPOSTED}{question_ts}"


def check_staged(record: AnswerRecord, where: str) -> None:
    """A StoreError unless `record` carries its question's staged marker (stage_answer)."""
    if record.reply_ts != staged_reply_ts(record.question_ts):
        raise StoreError(
            f"{where}: a staged answer's reply_ts must be {staged_reply_ts(record.question_ts)!r}"
            f", not {record.reply_ts!r}: stage it before posting, then mark_posted."
        )


def check_kind(kind: str) -> None:
    """A StoreError unless `kind` is one of FEEDBACK_KINDS: both backends check before writing."""
    if kind not in FEEDBACK_KINDS:
        raise StoreError(f"feedback kind {kind!r} is not one of {FEEDBACK_KINDS}.")


def check_reason(source: str, category: str | None) -> None:
    """A StoreError unless the reason's source and category are known ones."""
    if source not in REASON_SOURCES or category not in (None, *REASON_CATEGORIES):
        raise StoreError(f"a reason from {source!r} of category {category!r} is not known.")


def answer_record(row: Sequence[Any], where: str) -> AnswerRecord:
    """An answers row read back, its columns in AnswerRecord's order: id, team, channel,
    thread_ts, reply_ts, question_ts, asker, question, the answer's JSON text, created."""
    return AnswerRecord(
        id=int(row[0]), team=row[1], channel=row[2], thread_ts=row[3], reply_ts=row[4],
        question_ts=row[5], asker=row[6], question=row[7],
        answer=read_answer(row[8], f"{where}, answer {row[0]}"), created=row[9],
    )  # fmt: skip


def group_reasons(
    rows: Iterable[Sequence[Any]],
) -> dict[tuple[int, str], tuple[FeedbackReason, ...]]:
    """Reason rows (answer_id, user, text, at, source, category), in order, grouped by
    answer and author."""
    grouped: dict[tuple[int, str], list[FeedbackReason]] = {}
    for answer_id, user, text, at, source, category in rows:
        grouped.setdefault((answer_id, user), []).append(
            FeedbackReason(user, text, at, source, category)
        )
    return {key: tuple(value) for key, value in grouped.items()}


class AnswerLog(Protocol):
    def save_answer(self, record: AnswerRecord) -> int:
        """Store a reply's answer; its id. Each reply is saved once (StoreError otherwise)."""
        ...

    def stage_answer(self, record: AnswerRecord) -> int:
        """Store the answer to a reply before the reply is posted, so that a run taking over
        from one killed just after posting it finds it, and marks it posted; a reaction or a
        button finds it from then on, as after any mark. `record.reply_ts` is its question's marker
        (`staged_reply_ts`) until `mark_posted` names the reply. An answer staged earlier for
        the same question and never posted (its run died first, or its post failed) is
        replaced, keeping its id: the run answering again holds the question's claim. Its id."""
        ...

    def mark_posted(self, team: str, channel: str, question_ts: str, reply_ts: str) -> bool:
        """The answer staged for the message `question_ts` is the reply `reply_ts` now, found by
        `find_answer` and `posted_answer`; False when none is staged (it was marked already)."""
        ...

    def find_answer(self, team: str, channel: str, reply_ts: str) -> AnswerRecord | None: ...

    def posted_answer(self, team: str, channel: str, question_ts: str) -> AnswerRecord | None:
        """The posted reply to the message `question_ts`, if one is stored."""
        ...

    def thread_questions(self, team: str, channel: str, thread_ts: str) -> tuple[str, ...]:
        """The questions docbot replied to in this thread, oldest first."""
        ...

    def recent_answers(self, team: str, asker: str, limit: int) -> tuple[AnswerRecord, ...]:
        """The latest answers to `asker`'s questions in `team`, newest first (App Home)."""
        ...


# --- feedback ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FeedbackReason:
    user: str
    text: str
    at: str
    source: str = "thread"  # one of REASON_SOURCES
    category: str | None = None  # one of REASON_CATEGORIES, from the modal only


@dataclass(frozen=True, slots=True)
class FeedbackEntry:
    """One reaction on an answer, with the answer it judges and the reasons its author gave."""

    answer_id: int
    kind: str  # wrong | helpful
    emoji: str
    user: str
    at: str
    record: AnswerRecord
    reasons: tuple[FeedbackReason, ...]  # from the same user on the same answer, oldest first
    source: str = "reaction"  # one of MARK_SOURCES


@dataclass(frozen=True, slots=True)
class Toggled:
    """What a feedback button press did: the presser's button mark afterwards, and whether the
    press was done already (`repeat`: Slack delivered it again, and nothing changed)."""

    mark: str | None
    repeat: bool = False


class FeedbackLog(Protocol):
    def add_feedback(
        self, answer_id: int, user: str, kind: str, emoji: str, at: str, *, event_ts: str = ""
    ) -> bool:
        """Record `user`'s reaction `emoji` on the answer; False when it was recorded already,
        or when `event_ts` (Slack's time of the reaction event) is older than that of an event
        of the same reaction applied already (a removal made after it: reaction_order.py)."""
        ...

    def remove_feedback(self, answer_id: int, user: str, emoji: str, *, event_ts: str = "") -> bool:
        """Retract the reaction; False when there was nothing to retract, or when a later event
        of it was applied already. A removal that finds nothing is still remembered with its
        `event_ts`, so a mark made before it and resolved after it does not count."""
        ...

    def has_feedback(self, answer_id: int, user: str, emoji: str) -> bool:
        """Whether `user`'s reaction `emoji` on the answer is recorded."""
        ...

    def wrong_count(self, answer_id: int) -> int: ...
    def toggle_mark(
        self, answer_id: int, user: str, kind: str, at: str, *, once: EventKey | None = None
    ) -> Toggled:
        """A press of a feedback button, in one step: the user's button mark becomes `kind`,
        or is retracted when it already was `kind`. The user's button mark afterwards. With
        `once` (the press), the same step marks it done in the ledger, and a press done
        already changes nothing (a delivery of it again): its mark as it is, a `repeat`."""
        ...

    def add_reason(
        self, answer_id: int, user: str, text: str, at: str, *, source: str = "thread",
        category: str | None = None, once: EventKey | None = None,
    ) -> bool:  # fmt: skip
        """Store what `user` said was wrong; this answers their invitation, if any. With `once`
        (the submission), the same step marks it done in the ledger, and one done already is
        not stored again: False then."""
        ...

    def claim_escalation(self, answer_id: int, user: str, at: str) -> bool:
        """The first "Still need help?" on an answer, atomically: True for exactly one caller,
        across processes, until `release_escalation`. An answer is its question (team, channel,
        question_ts): every stored copy of it, such as a shared `/docbot` answer, counts as one.
        The claim is held from now by the store's clock, unconfirmed until
        `confirm_escalation`: a claim whose holder died lapses (`recheck_escalation`)."""
        ...

    def confirm_escalation(self, answer_id: int) -> None:
        """The owners' note is in Slack (posted now, or found there): the claim is final."""
        ...

    def release_escalation(self, answer_id: int) -> None:
        """The owners' note could not be posted: the next press, on any copy, may try again."""
        ...

    def doubt_escalation(self, answer_id: int) -> None:
        """The owners' note may or may not have been posted (Slack's answer was lost and the
        thread could not be read to tell): the claim is kept, so nobody asks again blindly, but
        marked unsure, so that one later press may look for the note (`recheck_escalation`)."""
        ...

    def recheck_escalation(
        self, answer_id: int, lease_seconds: float = ESCALATION_LEASE_SECONDS
    ) -> AnswerRecord | None:
        """This answer's question's claim when it is unsure, or unconfirmed and held for
        `lease_seconds` or more (its holder died between the claim and knowing whether the note
        was posted), taken by exactly one caller across processes: the mark is cleared and the
        claim is held again from now. The answer whose thread the note may be in; None when the
        claim is confirmed, held less than the lease, or missing. The taker looks for the note
        first, then settles the claim: confirms it (the note is there, or was posted now),
        releases it, or doubts it again."""
        ...

    def escalation_pending(self, answer_id: int) -> bool:
        """Whether the question's claim is held but not confirmed: its note is being posted, or
        its holder died and the claim has not lapsed yet."""
        ...

    def invite_reason(self, answer_id: int, user: str) -> None: ...
    def pending_reason(self, team: str, channel: str, thread_ts: str, user: str) -> int | None: ...
    def reason_given(
        self, team: str, channel: str, thread_ts: str, user: str, text: str
    ) -> int | None:
        """The answer in this thread for which `user` already gave the reason `text` in a
        thread reply (the latest): a run that takes a reply over from one that stored it and
        died before saying so finds it here, rather than answering it as a new question."""
        ...

    def feedback_entries(self, wrong_only: bool) -> tuple[FeedbackEntry, ...]: ...


# --- assistant threads -------------------------------------------------------------------------

# An assistant thread not told of its context for this long reads the DM's scope again until
# its next event: the table stays small, and the fallback is the scope of a thread never told.
THREAD_CONTEXT_RETENTION_SECONDS = 30 * 24 * 3600
# Both backends' statements (SQLite and PostgreSQL share the upsert syntax); named parameters.
SET_THREAD_CONTEXT_SQL = (
    "INSERT INTO thread_contexts (team, channel, thread_ts, context_channel, seen) "
    "VALUES (:team, :channel, :thread_ts, :context, :seen) "
    "ON CONFLICT (team, channel, thread_ts) DO UPDATE SET "
    "context_channel = excluded.context_channel, seen = excluded.seen "
    "WHERE excluded.seen >= thread_contexts.seen"
)
THREAD_CONTEXT_SQL = (
    "SELECT context_channel FROM thread_contexts "
    "WHERE team = :team AND channel = :channel AND thread_ts = :thread_ts"
)
PRUNE_THREAD_CONTEXTS_SQL = "DELETE FROM thread_contexts WHERE seen < :cutoff"


class ThreadContexts(Protocol):
    """Which channel each assistant thread is looking at (bot/thread_context.py)."""

    def set_thread_context(
        self, team: str, channel: str, thread_ts: str, context_channel: str, seen: float
    ) -> None:
        """The assistant thread `thread_ts` in the DM `channel` looks at `context_channel` ("":
        at no channel) since Slack's event time `seen`; an earlier event never overwrites a
        later one, whichever arrives first."""
        ...

    def thread_context(self, team: str, channel: str, thread_ts: str) -> str | None:
        """The channel the thread looks at; None when no event said ("" when at no channel)."""
        ...


class AnswerStore(EventLedger, AnswerLog, FeedbackLog, ThreadContexts, Protocol):
    """All four seams on one backend (one file, or one database)."""

    def ping(self) -> None:
        """Return once the backend answers a trivial query; StoreError when it cannot (a
        replica is then not ready: bot/health.py)."""
        ...

    def close(self) -> None: ...
