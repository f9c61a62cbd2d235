"""The fault suite's feedback scenario (`kill9-marks`): marks on docbot's answers, acknowledged
by a `docbot serve` that is killed at once, must all be in the store after its restart, once.

Each of n answers gets a :x: reaction, a thumbs-up press and a "what was wrong?" modal, all
sent at once while another process holds the SQLite store's write lock for LOCK_SECONDS (a busy
store: slower than usual, and within the ACK_BUDGET_SECONDS docbot gives it before an ack). The
moment every mark has its HTTP answer, the process gets SIGKILL. After the restart the suite
delivers again what was not acknowledged, as Slack does over HTTP (a reaction; a press or a
modal Slack never sends again, and the person saw an error), and waits for the dead process's
claims to lapse and be swept; then it delivers every mark once more (as Socket Mode would an
unacknowledged envelope), which must change nothing. Counted per mark in the store: stored
once; duplicated (a reason stored twice, or a press taken back by its second delivery); lost
(acknowledged, or delivered again, and not in the store after the restart).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import time
from collections import Counter
from pathlib import Path

import aiohttp

from benchmarks.fault_world import World
from bot.marks import ACK_BUDGET_SECONDS
from bot.render.feedback import FEEDBACK_ACTION, HELPFUL
from bot.store import LEASE_SECONDS
from bot.store.select import STORE_FILE
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import reason_submission
from tests.bot.harness import ASKER, GENERAL, post_event, post_form, reaction

LOCK_SECONDS = ACK_BUDGET_SECONDS / 4
PRESSER = "U0PRESSER"
MARK_KINDS = ("reaction", "press", "modal")
# The dead process's claims lapse after the lease; a sweep every lease/3 resolves them.
SETTLE_SECONDS = LEASE_SECONDS + LEASE_SECONDS / 3 + 2


async def kill9_marks(world: World, n: int) -> str:
    await world.deliver(list(range(n)))
    await world.answered(n)
    replies = {str(c.params["thread_ts"]): str(c.response["ts"]) for c in world.slack.posted()}
    store = world.serve.config.parent / "state" / STORE_FILE
    marks = [_marks(world, i, thread, reply) for i, (thread, reply) in enumerate(replies.items())]
    lock = sqlite3.connect(store, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # another process writing: docbot's writes wait for it
    timer = asyncio.get_running_loop().call_later(LOCK_SECONDS, lock.execute, "ROLLBACK")
    sent = [send for mark in marks for send in mark]
    statuses = await asyncio.gather(*(send(world.session, world.serve.url) for _, send in sent))
    await world.serve.signal(signal.SIGKILL)
    killed = time.monotonic()
    timer.cancel()  # when docbot answered before the lock was given up (it did not wait)
    lock.close()
    await world.serve.exited(10)
    unacked = [key for (key, _), status in zip(sent, statuses, strict=True) if status != 200]
    await world.serve.start()
    reactions = [send for key, send in sent if key.startswith("r:") and key in unacked]
    await asyncio.gather(*(send(world.session, world.serve.url, 1) for send in reactions))
    expected = {key for key, _ in sent if key not in unacked or key.startswith("r:")}
    deadline = killed + SETTLE_SECONDS + 60
    while time.monotonic() < deadline:
        if time.monotonic() > killed + SETTLE_SECONDS and expected <= set(_stored(store)):
            break
        await asyncio.sleep(0.5)
    first = _stored(store)
    # Every mark delivered once more (Slack redelivers an unacknowledged Socket Mode envelope
    # of any kind): nothing may change.
    await asyncio.gather(*(send(world.session, world.serve.url, 2) for _, send in sent))
    await world.quiet(time.monotonic() + 10)
    again = _stored(store)
    # Found once after the restart and unchanged by the second delivery: once. A reason stored
    # twice, or a press taken back by its second delivery: duplicated. Never found: lost.
    tally = Counter({k: 1 if again.get(k) == n else 2 for k, n in first.items() if k in expected})
    world.tally = (len(expected), tally)
    refused = len(unacked) - sum(1 for k in unacked if k.startswith("r:"))
    return (
        f"{len(sent)} marks (:x:, press, modal) on {n} answers, store locked "
        f"{LOCK_SECONDS:.1f} s, SIGKILL once all were answered; {len(unacked)} not acked "
        f"({refused} presses/modals the person saw fail), every mark delivered again"
    )


class MarkSend:
    """One mark's delivery, as Slack sends it (the same body each time)."""

    def __init__(self, body: dict[str, object], form: bool) -> None:
        self.body, self.form = body, form

    async def __call__(
        self, session: aiohttp.ClientSession, url: str, retry: int | None = None
    ) -> int:
        try:
            if self.form:
                status, _ = await post_form(session, url, {"payload": json.dumps(self.body)})
            else:
                status, _ = await post_event(session, url, self.body, retry=retry)
        except (aiohttp.ClientError, OSError, TimeoutError):
            return 0
        return status


def _marks(world: World, i: int, thread: str, reply: str) -> list[tuple[str, MarkSend]]:
    """The three marks on one answer, each keyed by what it is and the reply it is on."""
    sends = mark_sends(i, thread, reply, f"EvMark{world.base + i}")
    return [(f"{kind[0]}:{reply}", send) for kind, send in sends]


def mark_sends(i: int, thread: str, reply: str, event_id: str) -> list[tuple[str, MarkSend]]:
    """The three marks on the answer `reply` (in `thread`), by kind (MARK_KINDS), as Slack
    sends them: a :x: by the asker (the reaction event `event_id`), a thumbs-up press by
    PRESSER, and the asker's "what was wrong?" modal."""
    press = payloads.block_actions(FEEDBACK_ACTION, HELPFUL, team=TEAM, channel=GENERAL,
                                   user=PRESSER, message_ts=reply, thread_ts=thread)  # fmt: skip
    metadata = json.dumps({"team": TEAM, "channel": GENERAL, "reply_ts": reply})
    mark = reaction(True, "x", channel=GENERAL, item_ts=reply, event_id=event_id)
    modal = reason_submission(metadata, "outdated", f"reason {i}")
    bodies = (MarkSend(mark, form=False), MarkSend(press, form=True), MarkSend(modal, form=True))
    return list(zip(MARK_KINDS, bodies, strict=True))


def _stored(path: Path) -> Counter[str]:
    """Marks in the store by key: reactions and presses (one row each at most), and reasons
    (one per modal, or more when duplicated)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT CASE f.source WHEN 'button' THEN 'p:' ELSE 'r:' END || a.reply_ts, 1 "
            "FROM feedback f JOIN answers a ON a.id = f.answer_id "
            "WHERE (f.source = 'reaction' AND f.user = ?) OR (f.source = 'button' AND f.user = ?) "
            "UNION ALL SELECT 'm:' || a.reply_ts, 1 FROM reasons r "
            "JOIN answers a ON a.id = r.answer_id WHERE r.source = 'modal'",
            (ASKER, PRESSER),
        ).fetchall()
    except sqlite3.Error:
        return Counter()
    finally:
        conn.close()
    return Counter(key for key, _ in rows)
