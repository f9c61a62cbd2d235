"""Slack app latency: how fast a mention is acknowledged and answered, and a feedback mark
acknowledged, end to end on loopback.

The real Bolt app over signed HTTP (as `docbot serve` runs it), the real pipeline (index over
tests/bot/corpus, extractive generator) and the test suite's fake Slack Web API on 127.0.0.1.
Prints ack and threaded-reply latency for sequential mentions, then a burst of concurrent ones;
then the ack of each feedback mark on those answers (a :x: reaction, a feedback button press,
the "what was wrong?" modal; bot/marks.py stores them before the ack), one at a time, each
handled to the end before the next; on SQLite, also the marks sent all at once while another
process holds the store's write lock (for each --lock duration). Each on the SQLite store and on
a real PostgreSQL started on 127.0.0.1 (tests/postgres_server.py; skipped, saying why, where
none can start).

    python -m benchmarks.slack_latency [--mentions 60] [--burst 30] [--store sqlite|postgres]
        [--lock 0.5 --lock 3]   (from the repo root: it borrows the test suite's fakes, so it
    runs as a module)
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from benchmarks.fault_marks import LOCK_SECONDS, MARK_KINDS, MarkSend, mark_sends
from bot.runtime import make_pipeline
from bot.store import AnswerStore, SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import write_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import RunningApp, fake_slack, mention, running_app
from tests.postgres_server import Unavailable, private_server

QUESTIONS = (
    "how do I roll back a deploy?",
    "when should I roll back?",
    "who is on call?",
    "what is the capital of Australia?",
)
STORES = ("sqlite", "postgres")
LOCKED_ANSWERS = 10  # answers marked (three marks each) at once while the write lock is held


def _ms(seconds: list[float], q: float) -> float:
    return (
        statistics.quantiles(seconds, n=100, method="inclusive")[int(q) - 1] * 1000
        if len(seconds) > 1
        else 0.0
    )


def _line(label: str, seconds: list[float]) -> str:
    return f"  {label:<8} p50 {_ms(seconds, 50):6.1f} ms   p95 {_ms(seconds, 95):6.1f} ms"


async def _one(app: RunningApp, slack: FakeSlack, n: int) -> tuple[float, float]:
    """(ack seconds, reply seconds) for mention number `n`."""
    ts = f"{1000 + n}.000100"
    body = mention(QUESTIONS[n % len(QUESTIONS)], channel="C0GENERAL", ts=ts,
                   event_id=f"EvBench{n}", bot_user_id=slack.bot_user_id)  # fmt: skip
    started = time.monotonic()
    status, _ = await app.send(body)
    acked = time.monotonic()
    assert status == 200, status
    while not any(c.method == "chat.postMessage" and c.params.get("thread_ts") == ts
                  for c in slack.calls):  # fmt: skip
        await asyncio.sleep(0.001)
    return acked - started, time.monotonic() - started


async def _acked(app: RunningApp, send: MarkSend) -> tuple[float, int]:
    """Seconds until docbot answered one mark's delivery, and its HTTP status."""
    started = time.perf_counter()
    status = await send(app.session, app.url)
    return time.perf_counter() - started, status


def _marks(
    replies: list[tuple[str, str]], first: int, count: int
) -> list[list[tuple[str, MarkSend]]]:
    """The three marks for each of `count` answers (thread, reply), from answer `first` on."""
    chosen = replies[first : first + count]
    return [mark_sends(first + i, thread, reply, f"EvMark{first + i}")
            for i, (thread, reply) in enumerate(chosen)]  # fmt: skip


async def _marks_one_at_a_time(app: RunningApp, marks: list[list[tuple[str, MarkSend]]]) -> None:
    acks: dict[str, list[float]] = {kind: [] for kind in MARK_KINDS}
    for sends in marks:
        for kind, send in sends:
            seconds, status = await _acked(app, send)
            assert status == 200, f"{kind} answered {status} with the store free"
            acks[kind].append(seconds)
            await app.settle(30)  # what the mark does after its ack, done before the next
    print(f"feedback marks, one at a time, on {len(marks)} answers (ack):")
    for kind in MARK_KINDS:
        print(_line(kind, acks[kind]))


async def _marks_while_locked(
    app: RunningApp, marks: list[list[tuple[str, MarkSend]]], path: Path, seconds: float
) -> None:
    """Every mark sent at once while another process holds the SQLite write lock `seconds`."""
    sends = [(kind, send) for answer in marks for kind, send in answer]
    with _write_lock(path, seconds):
        answers = await asyncio.gather(*(_acked(app, send) for _, send in sends))
    await app.settle(60)
    print(f"{len(sends)} marks on {len(marks)} answers at once, SQLite write lock held "
          f"{seconds:.1f} s by another process (answer, 200 or 503):")  # fmt: skip
    for kind in MARK_KINDS:
        mine = [answer for (k, _), answer in zip(sends, answers, strict=True) if k == kind]
        times = [t for t, _ in mine]
        refused = sum(1 for _, status in mine if status != 200)
        print(_line(kind, times) + f"   max {max(times) * 1000:6.0f} ms   "
              f"refused {refused} of {len(mine)}")  # fmt: skip


@contextmanager
def _write_lock(path: Path, seconds: float) -> Iterator[None]:
    """Another connection takes the write lock and gives it up after `seconds` (or on exit)."""
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    timer = asyncio.get_running_loop().call_later(seconds, lock.execute, "ROLLBACK")
    try:
        yield
    finally:
        timer.cancel()
        if lock.in_transaction:
            lock.execute("ROLLBACK")
        lock.close()


@asynccontextmanager
async def _store(kind: str, folder: Path) -> AsyncIterator[AnswerStore]:
    if kind == "sqlite":
        store: AnswerStore = SQLiteAnswerStore(folder / "answers.sqlite3")
        try:
            yield store
        finally:
            store.close()
        return
    from bot.store import PostgresAnswerStore

    server = await asyncio.to_thread(private_server)
    try:
        url = await asyncio.to_thread(server.create_database, "docbot_latency")
        store = PostgresAnswerStore(url)
        try:
            yield store
        finally:
            store.close()
    finally:
        await asyncio.to_thread(server.remove)


async def _run(kind: str, mentions: int, burst: int, locks: list[float], folder: Path) -> None:
    config = load_config(write_config(folder))
    build_index(config)
    answerer = make_pipeline(config, Index.load(config), ExtractiveGenerator())
    async with (
        _store(kind, folder) as store,
        fake_slack() as slack,
        running_app(slack, config, answerer, store) as app,
    ):
        print(f"store: {kind}")
        slack.set_channel("C0GENERAL", is_channel=True, name="general")
        timings = [await _one(app, slack, n) for n in range(mentions)]
        acks, replies = [t[0] for t in timings], [t[1] for t in timings]
        print(f"sequential mentions: {mentions}")
        print(_line("ack", acks))
        print(_line("reply", replies))
        started = time.monotonic()
        results = await asyncio.gather(*(_one(app, slack, mentions + n) for n in range(burst)))
        print(f"burst of {burst} concurrent mentions:")
        print(f"  all acknowledged within {max(r[0] for r in results) * 1000:.0f} ms")
        print(f"  all answered within {(time.monotonic() - started) * 1000:.0f} ms")
        # Every answer's run ended (its status cleared) before the marks. This waited for
        # :eyes: removals, which docbot no longer makes (it sets the thread's status).
        await app.settle(30)
        posted = [(str(c.params["thread_ts"]), str(c.response["ts"])) for c in slack.posted()]
        await _marks_one_at_a_time(app, _marks(posted, 0, mentions))
        for i, seconds in enumerate(locks if kind == "sqlite" else []):
            marks = _marks(posted, mentions + i * LOCKED_ANSWERS, LOCKED_ANSWERS)
            await _marks_while_locked(app, marks, folder / "answers.sqlite3", seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mentions", type=int, default=60)
    parser.add_argument("--burst", type=int, default=30)
    parser.add_argument("--store", choices=STORES, action="append",
                        help="the store(s) to measure on (default: both)")  # fmt: skip
    parser.add_argument("--lock", type=float, action="append",
                        help=f"seconds the SQLite write lock is held while marks are sent "
                             f"(default: {LOCK_SECONDS}, as the fault suite's kill9-marks, "
                             f"and 3, longer than the ack budget); 0: none")  # fmt: skip
    args = parser.parse_args()
    locks = [s for s in (args.lock or [LOCK_SECONDS, 3.0]) if s > 0]
    if len(locks) * LOCKED_ANSWERS > args.burst:
        parser.error(f"--burst {args.burst} posts too few answers for {len(locks)} locked runs "
                     f"of {LOCKED_ANSWERS}: use --burst {len(locks) * LOCKED_ANSWERS}")  # fmt: skip
    for kind in args.store or STORES:
        with tempfile.TemporaryDirectory() as folder:
            try:
                asyncio.run(_run(kind, args.mentions, args.burst, locks, Path(folder)))
            except Unavailable as exc:
                print(f"store: PostgreSQL skipped, no server could start here: {exc}")
        print()


if __name__ == "__main__":
    main()
