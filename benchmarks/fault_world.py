"""The fault suite's world: `docbot serve` as a real process (`Serve`) beside the test suite's fake
Slack and fake OpenAI server on loopback (`World`), and the environment it is started with.
Shared by benchmarks/fault_suite.py, benchmarks/fault_marks.py and benchmarks/replica_load.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bot.store import LEASE_SECONDS
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, SIGNING_SECRET, mention, post_event
from tests.grounding.fake_openai import FakeOpenAI

QUESTIONS = (
    "how do I roll back a deploy?",
    "when should I roll back?",
    "who is on call?",
    "how long does a deploy take?",
)
# Every Slack method docbot calls while answering (auth.test at start-up).
SLACK_METHODS = ("auth.test", "conversations.info", "reactions.add", "reactions.remove",
                 "chat.postMessage")  # fmt: skip
START_SECONDS = 120.0  # for `docbot serve` to listen (index and model load on a busy machine)
ANSWER_SECONDS = 90.0  # for every mention to be answered once faults stop
QUIET_SECONDS = 1.5  # no Slack call for this long: docbot has nothing left to do
# A dead process's claims lapse after the lease; the next sweep (every lease/3) resumes them.
RESUME_SECONDS = LEASE_SECONDS + LEASE_SECONDS / 3 + ANSWER_SECONDS


class Serve:
    """One `docbot serve` process on a fixed port (a restart keeps Slack's URL)."""

    def __init__(
        self, config: Path, port: int, env: dict[str, str], logs: Path, extra: tuple[str, ...] = ()
    ) -> None:
        self.config, self.port, self.env, self.logs = config, port, env, logs
        self.extra = extra  # more `docbot serve` arguments (benchmarks/replica_load.py: --index)
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self.log = logs / "serve.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/slack/events"

    async def start(self) -> None:
        self.starts += 1
        self.log = self.logs / f"serve-{self.port}-{self.starts}.log"
        log = self.log.open("wb")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.cli", "serve", "--config", str(self.config),
            "--host", "127.0.0.1", "--port", str(self.port), *self.extra,
            env=self.env, stdout=log, stderr=asyncio.subprocess.STDOUT,
            cwd=SERVE_TREE[0] if SERVE_TREE else None,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + START_SECONDS
        async with aiohttp.ClientSession() as session:
            while time.monotonic() < deadline:
                if self.proc.returncode is not None:
                    raise RuntimeError(
                        f"docbot serve exited ({self.proc.returncode}); see {log.name}"
                    )
                with contextlib.suppress(aiohttp.ClientError):
                    async with session.get(f"http://127.0.0.1:{self.port}/healthz") as health:
                        if health.status == 200:
                            return
                await asyncio.sleep(0.1)
        raise RuntimeError(
            f"docbot serve did not listen within {START_SECONDS:.0f}s; see {log.name}"
        )

    async def signal(self, sig: signal.Signals) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(sig)

    async def logged(self, text: str, timeout: float) -> bool:
        """Until the current process's log holds `text` (or it exits, or the timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.log.read_text(encoding="utf-8", errors="replace"):
                return True
            if self.proc is None or self.proc.returncode is not None:
                return False
            await asyncio.sleep(0.01)
        return False

    async def exited(self, timeout: float) -> int | None:
        if self.proc is None:
            return None
        with contextlib.suppress(TimeoutError):
            return await asyncio.wait_for(self.proc.wait(), timeout)
        return None

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not drained and exited in time."""
        if self.proc is None or self.proc.returncode is not None:
            return
        await self.signal(signal.SIGTERM)
        if await self.exited(40) is None:
            self.proc.kill()
            await self.proc.wait()


@dataclass
class World:
    slack: FakeSlack
    serve: Serve
    session: aiohttp.ClientSession
    base: int  # mention timestamps of this scenario start here
    model: FakeOpenAI | None = None
    # What a scenario counts instead of replies to mentions (benchmarks/fault_marks.py): how
    # many it sent, and how often each was found.
    tally: tuple[int, Counter[str]] | None = None

    def body(self, n: int) -> dict[str, Any]:
        ts = f"{self.base + n}.000100"
        question, event_id = QUESTIONS[n % len(QUESTIONS)], f"EvFault{self.base + n}"
        return mention(question, channel=GENERAL, ts=ts, event_id=event_id,
                       bot_user_id=self.slack.bot_user_id)  # fmt: skip

    async def deliver(self, numbers: list[int], retry: int | None = None) -> list[int]:
        """Send mentions concurrently; the numbers whose delivery was not acknowledged."""

        async def one(n: int) -> bool:
            try:
                status, _ = await post_event(self.session, self.serve.url, self.body(n),
                                             retry=retry)  # fmt: skip
            except (aiohttp.ClientError, OSError, TimeoutError):
                return False
            return status == 200

        acked = await asyncio.gather(*(one(n) for n in numbers))
        return [n for n, ok in zip(numbers, acked, strict=True) if not ok]

    def replies(self, sent: int) -> Counter[str]:
        wanted = {f"{self.base + n}.000100" for n in range(sent)}
        return Counter(
            str(c.params.get("thread_ts")) for c in self.slack.posted()
            if c.params.get("thread_ts") in wanted
        )  # fmt: skip

    async def answered(
        self, sent: int, timeout: float = ANSWER_SECONDS, not_before: float = 0.0
    ) -> None:
        """Until every mention has a reply (or the timeout), and not before `not_before`
        (monotonic), then until Slack is quiet."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and (
            len(self.replies(sent)) < sent or time.monotonic() < not_before
        ):
            await asyncio.sleep(0.05)
        await self.quiet(deadline)

    async def calls_at_least(self, method: str, count: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while len(self.slack.calls_to(method)) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.005)

    async def quiet(self, deadline: float) -> None:
        seen = -1
        while time.monotonic() < deadline + QUIET_SECONDS:
            if len(self.slack.calls) == seen:
                return
            seen = len(self.slack.calls)
            await asyncio.sleep(QUIET_SECONDS)


SERVE_TREE: list[Path] = []  # --serve-tree: where `docbot serve` is imported from


def serve_env(slack: FakeSlack, model: FakeOpenAI | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLACK_", "OPENAI_", "DOCBOT_"))}  # fmt: skip
    if SERVE_TREE:  # `python -m` puts the working directory first on sys.path; this too
        env["PYTHONPATH"] = str(SERVE_TREE[0])
    env.update(SLACK_BOT_TOKEN=slack.token, SLACK_SIGNING_SECRET=SIGNING_SECRET,
               DOCBOT_SLACK_API_URL=slack.url)  # fmt: skip
    if model is not None:
        env.update(OPENAI_API_KEY="sk-fault-suite", OPENAI_BASE_URL=model.base_url)
    return env
