"""The order of one person's reaction on an answer (their `emoji` on it), by Slack's event time,
in both backends: a reaction event changes feedback only if it is later than the last one of the
same reaction that did, so a mark and its removal count in the order they were made, whichever
replica resolves which first (a mark kept pending by one, its removal delivered to another)."""

from __future__ import annotations

# Both backends' statement (SQLite and PostgreSQL share the upsert syntax; named parameters id,
# user, emoji, ts, now): a row back when the event at `ts` is the reaction's latest, recorded
# now; none when a later event of it was recorded already (then the event changes nothing). Two
# events of the same time cannot be ordered (Slack's example payloads share one): both apply,
# in the order resolved, as before; a delivery of the same event again is the ledger's to drop.
LATEST_SQL = (
    "INSERT INTO reaction_order (answer_id, user_id, emoji, event_ts, seen) "
    "VALUES (:id, :user, :emoji, :ts, :now) "
    "ON CONFLICT (answer_id, user_id, emoji) DO UPDATE SET "
    "event_ts = excluded.event_ts, seen = excluded.seen "
    "WHERE excluded.event_ts >= reaction_order.event_ts RETURNING 1"
)
# Kept as long as the ledger keeps events (EVENT_RETENTION_SECONDS): a reaction's event is
# resolved within the resume window (15 minutes) or never, so none older can come after that.
PRUNE_SQL = "DELETE FROM reaction_order WHERE seen < :cutoff"


def latest_params(
    answer_id: int, user: str, emoji: str, event_ts: str, now: float
) -> dict[str, object] | None:
    """LATEST_SQL's parameters for the reaction event at `event_ts`; None when the event has no
    time (an older payload's ""): it is not ordered, so it applies."""
    order = event_order(event_ts)
    if order is None:
        return None
    return {"id": answer_id, "user": user, "emoji": emoji, "ts": order, "now": now}


def event_order(event_ts: str) -> int | None:
    """Slack's event time ("1610241741.000500") as microseconds, to compare exactly (a double
    holds about 15.9 digits, the time 16); None when it is not one (an older payload's "")."""
    seconds, _, fraction = event_ts.partition(".")
    if not seconds.isdigit() or not (fraction == "" or fraction.isdigit()):
        return None
    return int(seconds) * 1_000_000 + int((fraction + "000000")[:6])
