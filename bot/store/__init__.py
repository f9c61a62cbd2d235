"""The answer store: every reply docbot posted, the feedback on it, and the event ledger.

The contract (bot/store/contract.py) is what the Slack app depends on; `SQLiteAnswerStore` is the
embedded default, `PostgresAnswerStore` the one several replicas share (bot/store/select.py picks).
Everything callers need is importable from here.
"""

from bot.store.contract import (
    BUTTON_MARK,
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
    Claim,
    ClaimKey,
    EventKey,
    EventLedger,
    FeedbackEntry,
    FeedbackLog,
    FeedbackReason,
    MentionKey,
    Resumable,
    StoreError,
    StoreUnavailable,
)
from bot.store.postgres import PostgresAnswerStore
from bot.store.sqlite import SQLiteAnswerStore

__all__ = [
    "BUTTON_MARK",
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
]
