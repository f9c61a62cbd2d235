"""The answer store: every reply docbot posted, the feedback on it, and the event ledger.

The contract (bot/store/contract.py) is what the Slack app depends on; `SQLiteAnswerStore` is the
embedded default, `PostgresAnswerStore` the one several replicas share (bot/store/select.py picks).
Everything callers need is importable from here. The PostgreSQL store (SQLAlchemy, asyncpg:
about half a second to import) is imported when first asked for, so a command that never opens
it, such as `docbot search`, does not pay for it.
"""

from typing import TYPE_CHECKING, Any

from bot.store.contract import (
    BUTTON_MARK,
    ESCALATION_LEASE_SECONDS,
    EVENT_RETENTION_SECONDS,
    FEEDBACK_KINDS,
    LEASE_SECONDS,
    MARK_SOURCES,
    REASON_CATEGORIES,
    REASON_SOURCES,
    REASON_WINDOW_SECONDS,
    UNPOSTED,
    AnswerLog,
    AnswerRecord,
    AnswerStore,
    FeedbackEntry,
    FeedbackLog,
    FeedbackReason,
    StoreError,
    StoreUnavailable,
    ThreadContexts,
    Toggled,
    staged_reply_ts,
)
from bot.store.event_ledger import Claim, ClaimKey, EventKey, EventLedger, MentionKey, Resumable
from bot.store.sqlite import SQLiteAnswerStore

if TYPE_CHECKING:
    from bot.store.postgres import PostgresAnswerStore


def __getattr__(name: str) -> Any:
    if name == "PostgresAnswerStore":
        from bot.store.postgres import PostgresAnswerStore

        return PostgresAnswerStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BUTTON_MARK",
    "ESCALATION_LEASE_SECONDS",
    "EVENT_RETENTION_SECONDS",
    "FEEDBACK_KINDS",
    "LEASE_SECONDS",
    "MARK_SOURCES",
    "REASON_CATEGORIES",
    "REASON_SOURCES",
    "REASON_WINDOW_SECONDS",
    "UNPOSTED",
    "AnswerLog",
    "AnswerRecord",
    "AnswerStore",
    "Claim",
    "ClaimKey",
    "EventKey",
    "EventLedger",
    "FeedbackEntry",
    "FeedbackLog",
    "FeedbackReason",
    "MentionKey",
    "PostgresAnswerStore",
    "Resumable",
    "SQLiteAnswerStore",
    "StoreError",
    "StoreUnavailable",
    "ThreadContexts",
    "Toggled",
    "staged_reply_ts",
]
