"""Replicas under load: `docbot serve` processes sharing one PostgreSQL and one published index,
against the fake Slack on loopback, every mention delivered twice to two different replicas.

    python -m benchmarks.replica_load [--mentions 300] [--rate 20] [--only plain,kill9]

Scenarios: `plain` (three replicas, no fault), `kill9` (one replica SIGKILLed mid-burst; what it
did not acknowledge is delivered again to the others, what it acknowledged and left unfinished
is resumed by them once its leases lapse), `pg-restart` (the PostgreSQL server stopped mid-burst
and started again two seconds later), and `one-replica` (one process takes both deliveries: the
scaling baseline). For each: mentions answered exactly once, duplicated, lost; the ack latency
(POST to HTTP 200) p50 / p99 of every delivery; answers per second from the first send to the
last reply.

It reuses the fault suite's pieces (benchmarks/fault_world.py: `Serve`, `serve_env`, the questions)
and the test suite's fakes and PostgreSQL server (tests/postgres_server.py); run it from the repo
root. Every process it starts is stopped; nothing leaves 127.0.0.1. Figures depend on the machine:
say which, and how loaded, when quoting them (docs/performance.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from benchmarks.fault_world import QUESTIONS, Serve, serve_env
from bot.store import LEASE_SECONDS
from retrieval.artifact import builder_lock, publish
from retrieval.config import load_config
from retrieval.index import build_index
from tests.bot.conftest import write_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, mention, post_event, with_channels
from tests.ports import free_port
from tests.postgres_server import PostgresServer, private_server

ANSWER_SECONDS = 180.0  # for every mention to be answered once the burst is over
QUIET_SECONDS = 2.0  # no new reply for this long: nothing left to post
# A killed replica's claims lapse after the lease; the next sweep (every lease / 3) resumes them.
RESUME_SECONDS = LEASE_SECONDS + LEASE_SECONDS / 3 + 5
PG_DOWN_SECONDS = 2.0
RETRY_PAUSE_SECONDS = 3.0  # between Slack's tries of an unacknowledged event (compressed)
HOLD_SECONDS = 0.5  # kill9: how long Slack holds every reply before the kill


@dataclass
class Result:
    scenario: str
    replicas: int
    sent: int
    replies: Counter[str] = field(default_factory=Counter)
    acks: list[float] = field(default_factory=list)  # seconds, each acknowledged delivery
    seconds: float = 0.0  # first send to last reply
    note: str = ""

    def row(self) -> str:
        answered = sum(1 for n in self.replies.values() if n == 1)
        duplicated = sum(1 for n in self.replies.values() if n > 1)
        lost = self.sent - len(self.replies)
        p50, p99 = _percentile(self.acks, 50), _percentile(self.acks, 99)
        rate = len(self.replies) / self.seconds if self.seconds else 0.0
        cells = (self.scenario, self.replicas, self.sent, answered, duplicated, lost,
                 f"{p50 * 1000:.0f}", f"{p99 * 1000:.0f}", f"{rate:.1f}", self.note)  # fmt: skip
        return "| " + " | ".join(str(cell) for cell in cells) + " |"


def _percentile(values: list[float], pct: int) -> float:
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


@dataclass
class Cluster:
    slack: FakeSlack
    serves: list[Serve]
    session: aiohttp.ClientSession
    server: PostgresServer
    base: int
    result: Result
    unacked: list[int] = field(default_factory=list)

    def body(self, n: int) -> dict[str, Any]:
        ts = f"{self.base + n}.000100"
        return mention(QUESTIONS[n % len(QUESTIONS)], channel=GENERAL, ts=ts,
                       event_id=f"EvLoad{self.base + n}",
                       bot_user_id=self.slack.bot_user_id)  # fmt: skip

    def targets(self, n: int) -> tuple[int, int]:
        """Two different replicas for mention n's two deliveries (one, when there is one)."""
        k = len(self.serves)
        return n % k, (n + 1) % k

    async def deliver(self, replica: int, n: int, retry: int | None = None) -> bool:
        started = time.perf_counter()
        try:
            status, _ = await post_event(self.session, self.serves[replica].url, self.body(n),
                                         retry=retry)  # fmt: skip
        except (aiohttp.ClientError, OSError, TimeoutError):
            return False
        if status == 200:
            self.result.acks.append(time.perf_counter() - started)
        return status == 200

    async def mention_twice(self, n: int) -> None:
        first, second = self.targets(n)
        acked = await asyncio.gather(self.deliver(first, n), self.deliver(second, n, retry=1))
        if not any(acked):
            self.unacked.append(n)  # Slack would deliver it again: see redeliver

    async def redeliver(self) -> int:
        """What no replica acknowledged, again, as Slack does: up to three more tries (retry 1
        to 3), each to a live replica, RETRY_PAUSE_SECONDS apart (Slack waits about a minute,
        then five). How many deliveries that took."""
        sent = 0
        for attempt in (1, 2, 3):
            if not self.unacked:
                break
            await asyncio.sleep(RETRY_PAUSE_SECONDS)
            again, self.unacked = self.unacked, []
            for n in again:
                for replica in _rotated(len(self.serves), n):
                    serve = self.serves[replica]
                    alive = serve.proc is not None and serve.proc.returncode is None
                    if alive:
                        sent += 1
                        if await self.deliver(replica, n, retry=attempt):
                            break
                else:
                    self.unacked.append(n)
        return sent

    def replies(self) -> Counter[str]:
        wanted = {f"{self.base + n}.000100" for n in range(self.result.sent)}
        return Counter(
            str(c.params.get("thread_ts")) for c in self.slack.posted()
            if c.params.get("thread_ts") in wanted
        )  # fmt: skip

    def last_reply(self) -> float:
        wanted = {f"{self.base + n}.000100" for n in range(self.result.sent)}
        times = [c.at for c in self.slack.posted() if c.params.get("thread_ts") in wanted]
        return max(times, default=time.monotonic())

    async def answered(self, timeout: float, not_before: float = 0.0) -> None:
        """Until every mention has a reply and nothing more is posted for QUIET_SECONDS."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (
            len(self.replies()) < self.result.sent or time.monotonic() < not_before
        ):
            await asyncio.sleep(0.1)
        seen = -1
        while time.monotonic() < deadline + QUIET_SECONDS and len(self.slack.posted()) != seen:
            seen = len(self.slack.posted())
            await asyncio.sleep(QUIET_SECONDS)


def _rotated(k: int, n: int) -> list[int]:
    """The replicas in turn, starting at mention n's own (so retries spread over them)."""
    return [(n + i) % k for i in range(k)]


Fault = Callable[[Cluster], Awaitable[str]]


async def no_fault(cluster: Cluster) -> str:
    return "no faults"


async def kill_one(cluster: Cluster) -> str:
    """Slack holds every reply for a moment, so the victim surely dies with answers in flight:
    some in chat.postMessage (Slack has them: the reply appears, though docbot never hears
    back), some acknowledged and not yet posted."""
    victim = cluster.serves[0]
    assert victim.proc is not None
    gate = cluster.slack.hold("chat.postMessage")
    await asyncio.sleep(HOLD_SECONDS)
    victim.proc.kill()
    await victim.proc.wait()
    held = sum(1 for c in cluster.slack.calls_to("chat.postMessage") if not c.status)
    gate.set()
    return f"replica 0 SIGKILLed mid-burst with {held} replies held in chat.postMessage"


async def restart_postgres(cluster: Cluster) -> str:
    await asyncio.to_thread(cluster.server.stop)
    await asyncio.sleep(PG_DOWN_SECONDS)
    await asyncio.to_thread(cluster.server.start)
    return f"PostgreSQL stopped mid-burst, started {PG_DOWN_SECONDS:.0f} s later"


SCENARIOS: dict[str, tuple[int, Fault]] = {
    "plain": (3, no_fault),
    "kill9": (3, kill_one),
    "pg-restart": (3, restart_postgres),
    "one-replica": (1, no_fault),
}


async def _burst(cluster: Cluster, rate: float, fault: Fault) -> tuple[str, float]:
    """Send every mention twice at `rate` mentions per second; the fault strikes halfway."""
    sending: list[asyncio.Task[None]] = []
    faulted: asyncio.Task[str] | None = None
    started = time.monotonic()
    for n in range(cluster.result.sent):
        if n == cluster.result.sent // 2:
            faulted = asyncio.create_task(fault(cluster))
        sending.append(asyncio.create_task(cluster.mention_twice(n)))
        await asyncio.sleep(max(0.0, started + (n + 1) / rate - time.monotonic()))
    await asyncio.gather(*sending)
    assert faulted is not None
    return await faulted, started


async def _scenario(name: str, n: int, rate: float, base: int, root: Path) -> Result:
    replicas, fault = SCENARIOS[name]
    folder = root / name
    folder.mkdir()
    config_path = write_config(folder)
    published = folder / "published"
    config = load_config(config_path)
    with builder_lock(published):
        build_index(config)
        publish(config, published)
    result = Result(name, replicas, n)
    async with contextlib.AsyncExitStack() as stack:
        # Each part is handed to the stack as soon as it runs: a later start that fails still
        # stops the server and the fake Slack started before it.
        server = await asyncio.to_thread(private_server)
        stack.callback(server.remove)
        slack = with_channels(FakeSlack(team_id="T0DOCBOT"))
        await slack.start()
        stack.push_async_callback(slack.stop)
        url = await asyncio.to_thread(server.create_database, "docbot_load")
        env = serve_env(slack, None) | {"DOCBOT_DATABASE_URL": url}
        serves = [
            Serve(config_path, free_port(), env, folder, ("--index", str(published)))
            for _ in range(replicas)
        ]
        for serve in serves:
            stack.push_async_callback(serve.stop)
        await asyncio.gather(*(serve.start() for serve in serves))
        session = await stack.enter_async_context(
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        )
        cluster = Cluster(slack, serves, session, server, base, result)
        note, started = await _burst(cluster, rate, fault)
        again = await cluster.redeliver()
        not_before = time.monotonic() + RESUME_SECONDS if fault is kill_one else 0.0
        await cluster.answered(ANSWER_SECONDS + RESUME_SECONDS, not_before)
        result.replies = cluster.replies()
        result.seconds = max(0.0, cluster.last_reply() - started)
        logs = " ".join(p.read_text(errors="replace") for p in folder.glob("serve-*.log"))
        resumed = logs.count("resuming event EvLoad")
        result.note = (f"{note}; {again} deliveries again after the burst, "
                       f"{len(cluster.unacked)} never acknowledged; {resumed} resumed")  # fmt: skip
    return result


async def _run(names: list[str], n: int, rate: float) -> None:
    with tempfile.TemporaryDirectory(prefix="docbot-replicas-") as tmp:
        results = []
        for i, name in enumerate(names):
            try:
                results.append(await _scenario(name, n, rate, 4_000_000 + i * 1000, Path(tmp)))
            except Exception as exc:  # a benchmark reports what broke and goes on
                results.append(Result(name, SCENARIOS[name][0], n, note=f"FAILED: {exc!r}"))
            print(results[-1].row(), flush=True)
        print()
        print("| scenario | replicas | mentions | answered once | duplicated | lost | "
              "ack p50 ms | ack p99 ms | answers/s | notes |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|---|---|")
        for result in results:
            print(result.row())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mentions", type=int, default=300, help="mentions per scenario")
    parser.add_argument("--rate", type=float, default=20.0, help="mentions sent per second")
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    args = parser.parse_args()
    names = [s for s in args.only.split(",") if s] or list(SCENARIOS)
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}")
    asyncio.run(_run(names, args.mentions, args.rate))


if __name__ == "__main__":
    main()
