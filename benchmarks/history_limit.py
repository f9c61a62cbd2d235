"""Slack's history limit and docbot's feedback: of the reactions made in the moments when docbot
must read the message back to know its answer, how many are counted, lost or counted twice, and
how long each takes to count.

Slack limits conversations.replies for apps outside the Marketplace to about one call a minute
(docs/slack.md, "Scopes the app asks for"). Here the fake Slack enforces that limit scaled down
(one call per --window seconds, 429 with Retry-After in whole seconds), the Web API client's
retries are slack_sdk's as docbot configures them (twice, waiting Retry-After plus up to a second
of jitter, on the real clock), and the resumer of the replica that gets the reactions sweeps
every --sweep seconds (docbot's 10 s, scaled by the same factor: 60 s -> 3 s, 10 s -> 0.5 s).
Two replicas of the real Bolt app over signed HTTP on loopback share one SQLite store; one
answers the questions, the other gets every reaction. Scenarios:

  unmarked   --reactions replies, each reacted to in the moment between Slack posting it and
             its run hearing back (Slack's answers to the posts held --hold seconds): the
             reacting replica reads each message back, all at once, under the limit.
  streaming  --reactions streamed replies, each reacted to while still being written (the
             fake model server writes each answer over --pace seconds).
  takeover   --reactions questions whose process died after Slack posted the reply: the other
             replica takes each over and reads the thread for the reply (docbot's takeover),
             under the limit; a read turned away defers the question past its Retry-After,
             so one question is settled per window, and a second reply means a takeover
             answered without having read the thread.
             The posting replica is not really killed: its held posts time out after the
             client's 30 s and then read the thread themselves, so keep --reactions times
             --window under about 30 s, for the takeovers to be done by then.

    python -m benchmarks.history_limit [--reactions 5] [--window 3] [--sweep 0.5]
                                       [--hold 1] [--pace 2]            (from the repo root)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bot.app import Answerer, RetryPolicy
from bot.resume import Resumer
from bot.runtime import make_pipeline
from bot.store import LEASE_SECONDS, SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import TEAM, write_config
from tests.bot.e2e import ask, posted_ts
from tests.bot.fake_slack import FakeSlack
from tests.bot.fake_slack_limits import RateLimit
from tests.bot.harness import GENERAL, RunningApp, fake_slack, reaction, running_app, with_channels
from tests.bot.model_pipeline import model_pipeline
from tests.bot.test_e2e_streaming import CLAIMS
from tests.grounding.fake_openai import FakeOpenAI, answer, paced

QUESTION = "how do I roll back a deploy?"
GIVE_UP_SECONDS = 60.0  # a reaction not counted by then is lost (far past every retry)...
GIVE_UP_WINDOWS = 10  # ...or this many windows of the limit, when that is longer


def _give_up(window: float) -> float:
    return max(GIVE_UP_SECONDS, GIVE_UP_WINDOWS * window)


@dataclass
class Outcome:
    sent: int
    counted: int
    doubled: int
    seconds: list[float]  # from the reaction to its mark in the store, for each counted
    reads: int
    turned_away: int

    def line(self, label: str) -> str:
        times = _spread(self.seconds)
        return (
            f"{label:<10} sent {self.sent}  kept {self.counted}  lost {self.sent - self.counted}"
            f"  doubled {self.doubled}  time to count: {times}   conversations.replies "
            f"{self.reads} calls, {self.turned_away} answered 429"
        )


def _spread(seconds: list[float]) -> str:
    if not seconds:
        return "-"
    return f"median {statistics.median(seconds):5.2f} s, max {max(seconds):5.2f} s"


@dataclass
class Replicas:
    slack: FakeSlack
    store: SQLiteAnswerStore
    posting: RunningApp
    reacting: RunningApp


@asynccontextmanager
async def _replicas(
    folder: Path, name: str, config: Config, answerer: Answerer, window: float, sweep: float,
    store_clock: Callable[[], float] = time.time,
) -> AsyncIterator[Replicas]:  # fmt: skip
    store = SQLiteAnswerStore(folder / f"{name}.sqlite3", clock=store_clock)
    resumer = Resumer()
    retry = RetryPolicy()  # slack_sdk's waits on the real clock, as `docbot serve` runs
    async with fake_slack() as slack:
        with_channels(slack).rate_limit("conversations.replies", RateLimit(1, window))
        async with (
            running_app(slack, config, answerer, store, retry=retry) as posting,
            running_app(slack, config, answerer, store, retry=retry, resumer=resumer) as other,
        ):
            sweeping = asyncio.create_task(resumer.run(every=sweep))
            try:
                yield Replicas(slack, store, posting, other)
            finally:
                sweeping.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeping
                await posting.settle(timeout=_give_up(window))
                await other.settle(timeout=_give_up(window))
    store.close()


async def _react_and_count(
    replicas: Replicas, replies: list[str], then: Callable[[], Awaitable[None]]
) -> Outcome:
    """React :x: on every reply at once, run `then`, and wait until each mark is counted."""
    slack, store = replicas.slack, replicas.store
    sent_at = time.monotonic()
    await asyncio.gather(*(
        replicas.reacting.send(reaction(True, "x", channel=GENERAL, item_ts=ts,
                                        event_id=f"EvLimit{ts}"))
        for ts in replies
    ))  # fmt: skip
    await then()
    counted: dict[str, float] = {}
    give_up = _give_up(slack.limits["conversations.replies"].per)
    while len(counted) < len(replies) and time.monotonic() - sent_at < give_up:
        marks = {e.record.reply_ts for e in store.feedback_entries(wrong_only=True)}
        now = time.monotonic()
        counted.update({ts: now - sent_at for ts in marks if ts not in counted})
        await asyncio.sleep(0.02)
    marks_per_reply = Counter(e.record.reply_ts for e in store.feedback_entries(wrong_only=True))
    limit = slack.limits["conversations.replies"]
    return Outcome(
        sent=len(replies), counted=len(counted),
        doubled=sum(1 for n in marks_per_reply.values() if n > 1),
        seconds=[counted[ts] for ts in replies if ts in counted],
        reads=len(slack.calls_to("conversations.replies")), turned_away=limit.turned_away,
    )  # fmt: skip


async def _unmarked(
    folder: Path, config: Config, answerer: Answerer, args: argparse.Namespace
) -> Outcome:
    async with _replicas(folder, "unmarked", config, answerer, args.window,
                         args.sweep) as replicas:  # fmt: skip
        slack = replicas.slack
        gate = slack.hold("chat.postMessage", after=True)
        for n in range(args.reactions):
            await replicas.posting.send(ask(slack, QUESTION, GENERAL, f"{3000 + n}.000100"))
        posts = await slack.wait_for("chat.postMessage", args.reactions, timeout=30)
        replies = [posted_ts(post) for post in posts]

        async def answers_come_back() -> None:
            await asyncio.sleep(args.hold)
            gate.set()

        return await _react_and_count(replicas, replies, answers_come_back)


async def _streaming(folder: Path, config: Config, args: argparse.Namespace) -> Outcome:
    async with FakeOpenAI() as server:
        server.always("responses", paced(args.pace, answer(CLAIMS)))
        async with (
            model_pipeline(config, server) as pipeline,
            _replicas(folder, "streaming", config, pipeline, args.window, args.sweep) as replicas,
        ):
            slack = replicas.slack
            for n in range(args.reactions):
                await replicas.posting.send(ask(slack, QUESTION, GENERAL, f"{4000 + n}.000100"))
            starts = await slack.wait_for("chat.startStream", args.reactions, timeout=30)
            replies = [str(start.response["ts"]) for start in starts]

            async def nothing() -> None:
                return None

            return await _react_and_count(replicas, replies, nothing)


async def _takeover(
    folder: Path, config: Config, answerer: Answerer, args: argparse.Namespace
) -> str:
    """--reactions questions whose replies Slack posted but whose run never heard back (held
    for good: a process killed after posting); once their leases lapse (the store's clock moved
    on), the other replica takes each over and reads the thread for the reply, under the limit.
    A takeover that answered without reading the thread shows as a second reply."""
    ahead = [0.0]
    async with _replicas(folder, "takeover", config, answerer, args.window, args.sweep,
                         lambda: time.time() + ahead[0]) as replicas:  # fmt: skip
        slack, store = replicas.slack, replicas.store
        gate = slack.hold("chat.postMessage", after=True)
        questions = [f"{5000 + n}.000100" for n in range(args.reactions)]
        for ts in questions:
            await replicas.posting.send(ask(slack, QUESTION, GENERAL, ts))
        await slack.wait_for("chat.postMessage", args.reactions, timeout=30)
        slack.unhold("chat.postMessage")  # the held answers never come; new posts are answered
        started = time.monotonic()
        ahead[0] = LEASE_SECONDS + 1  # the posting process's leases lapse
        done: dict[str, float] = {}
        while len(done) < len(questions) and time.monotonic() - started < _give_up(args.window):
            for ts in questions:
                if ts not in done and store.posted_answer(TEAM, GENERAL, ts) is not None:
                    done[ts] = time.monotonic() - started
            await asyncio.sleep(0.02)
        await replicas.reacting.settle(timeout=_give_up(args.window))
        replies = Counter(m.get("thread_ts") for m in slack.messages.get(GENERAL, []))
        second = sum(1 for ts in questions if replies[ts] > 1)
        gate.set()  # the killed process's runs end (their leases are lost: they post nothing)
        took = _spread(list(done.values()))
        limit = slack.limits["conversations.replies"]
        return (
            f"{'takeover':<10} questions {len(questions)}  answered once {len(questions) - second}"
            f"  second replies {second}  marked posted {len(done)}  time to mark: {took}   "
            f"conversations.replies {len(slack.calls_to('conversations.replies'))} calls, "
            f"{limit.turned_away} answered 429"
        )


async def _run(args: argparse.Namespace, folder: Path) -> None:
    config = load_config(write_config(folder))
    build_index(config)
    answerer = make_pipeline(config, Index.load(config), ExtractiveGenerator())
    print(f"conversations.replies limited to 1 call per {args.window:g} s; sweeps every "
          f"{args.sweep:g} s; {args.reactions} reactions per scenario")  # fmt: skip
    print((await _unmarked(folder, config, answerer, args)).line("unmarked"))
    print((await _streaming(folder, config, args)).line("streaming"))
    print(await _takeover(folder, config, answerer, args))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reactions", type=int, default=5)
    parser.add_argument("--window", type=float, default=3.0)
    parser.add_argument("--sweep", type=float, default=0.5)
    parser.add_argument("--hold", type=float, default=1.0)
    parser.add_argument("--pace", type=float, default=2.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_run(args, Path(folder)))


if __name__ == "__main__":
    main()
