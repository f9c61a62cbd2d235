"""The fault suite: `docbot serve` as a real process, attacked as an unlucky operator would.

Each scenario starts `docbot serve` (HTTP mode, a signing secret, the index over tests/bot/corpus)
as a subprocess on 127.0.0.1, with DOCBOT_SLACK_API_URL pointing at the test suite's fake Slack
and, where a model is needed, OPENAI_BASE_URL at its fake OpenAI server, both run in this
process on loopback. It sends signed mentions and counts, per mention, the replies docbot posted
in its thread: answered (exactly one), duplicated (more than one) and lost (none).

    python -m benchmarks.fault_suite [--mentions 20] [--only kill9,sigterm] [--serve-tree DIR]

(from the repo root: it borrows the test suite's fakes, so it runs as a module). Every loop is
bounded, every process it starts is stopped, and nothing leaves 127.0.0.1. Slack delivers again
only what was not acknowledged (HTTP 200), so that is what the "redeliver" steps send, except in
kill9-all, which delivers every mention again as the original report did; kill9-marks counts
feedback marks instead (benchmarks/fault_marks.py). `--serve-tree` runs
`docbot serve` from another checkout (a `git worktree` of an older commit), for before/after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

from benchmarks.fault_marks import kill9_marks
from benchmarks.fault_world import (
    RESUME_SECONDS,
    SERVE_TREE,
    SLACK_METHODS,
    Serve,
    World,
    serve_env,
)
from bot.store import LEASE_SECONDS
from retrieval.config import load_config
from retrieval.index import build_index
from tests.bot.conftest import write_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import (
    with_channels,
)
from tests.grounding.fake_openai import FakeOpenAI, answer, hang, raw_body, slow
from tests.ports import free_port


@dataclass
class Result:
    scenario: str
    sent: int
    replies: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    note: str = ""

    def row(self) -> str:
        answered = sum(1 for n in self.replies.values() if n == 1)
        duplicated = sum(1 for n in self.replies.values() if n > 1)
        lost = self.sent - len(self.replies)
        return (f"| {self.scenario} | {self.sent} | {answered} | {duplicated} | {lost} | "
                f"{self.seconds:.0f} | {self.note} |")  # fmt: skip


Scenario = Callable[[World, int], Awaitable[str]]


async def baseline(world: World, n: int) -> str:
    await world.deliver(list(range(n)))
    await world.answered(n)
    return "no faults"


async def _kill9(world: World, n: int, *, redeliver_all: bool) -> str:
    # Slack holds every reply, so the kill lands mid-burst: half the answers are in
    # chat.postMessage (Slack has the request: the reply appears once it answers, though
    # docbot never hears back), the other half were acknowledged a moment before the kill.
    gate = world.slack.hold("chat.postMessage")
    first = await world.deliver(list(range(n // 2)))
    await world.calls_at_least("chat.postMessage", max(1, n // 2))
    second = await world.deliver(list(range(n // 2, n)))
    await world.serve.signal(signal.SIGKILL)
    killed = time.monotonic()
    unacked = first + second
    await world.serve.exited(10)
    in_post = len(world.slack.calls_to("chat.postMessage"))
    gate.set()
    await world.serve.start()
    again = list(range(n)) if redeliver_all else unacked
    await world.deliver(again, retry=1)
    # Until the dead process's claims have lapsed and been swept: a duplicate would come then.
    await world.answered(n, RESUME_SECONDS, not_before=killed + LEASE_SECONDS * 4 / 3 + 2)
    return (f"killed with {in_post} replies in chat.postMessage; {len(unacked)} unacked; "
            f"{len(again)} delivered again")  # fmt: skip


async def kill9(world: World, n: int) -> str:
    return await _kill9(world, n, redeliver_all=False)


async def kill9_all(world: World, n: int) -> str:
    return await _kill9(world, n, redeliver_all=True)


async def sigterm(world: World, n: int) -> str:
    """The model takes 2 s per answer, so answers are being worked out when the signal comes."""
    assert world.model is not None
    first, second = list(range(n // 2)), list(range(n // 2, n))
    sending = asyncio.create_task(world.deliver(first))
    deadline = time.monotonic() + 60
    while len(world.model.requests) < max(1, n // 4) and time.monotonic() < deadline:
        await asyncio.sleep(0.005)
    await world.serve.signal(signal.SIGTERM)
    await world.serve.logged("received SIGTERM", 5)  # a docbot without a handler says nothing
    during = await world.deliver(second)  # arrive while it drains: refused, or nobody listens
    unacked = await sending + during
    code = await world.serve.exited(40)
    done = sum(world.replies(n).values())
    await world.serve.start()
    await world.deliver(unacked, retry=1)
    await world.answered(n, RESUME_SECONDS)
    return f"exit {code} after {done} replies; {len(unacked)} refused, delivered again"


async def _slack_failures(world: World, n: int, status: int) -> str:
    """The first calls of every method fail; chat.postMessage's first 2.5 n, more than its two
    retries absorb, so a quarter of the replies fail for good on their first run (a Slack
    outage of a few seconds)."""
    for i, method in enumerate(SLACK_METHODS[1:]):
        count = 2 * n + n // 2 if method == "chat.postMessage" else n // 2
        if status == 429:
            world.slack.fail_next(method, 429, count=count, retry_after=1)
        elif i % 2:  # half of them a proxy's HTML page instead of Slack's JSON
            world.slack.fail_next(method, 500, count=count, body="<html><h1>502</h1></html>")
        else:
            world.slack.fail_next(method, 500, count=count)
    await world.deliver(list(range(n)))
    await world.answered(n)
    failed = sum(1 for c in world.slack.calls if c.status == status)
    return f"{failed} calls answered {status}"


async def slack500(world: World, n: int) -> str:
    return await _slack_failures(world, n, 500)


async def slack429(world: World, n: int) -> str:
    return await _slack_failures(world, n, 429)


async def model_hang(world: World, n: int) -> str:
    await world.deliver(list(range(n)))
    await world.answered(n)
    return "model never answers (deadline 6 s)"


async def model_garbage(world: World, n: int) -> str:
    await world.deliver(list(range(n)))
    await world.answered(n)
    return "model answers 200 with HTML"


SCENARIOS: dict[str, Scenario] = {
    "baseline": baseline, "kill9": kill9, "kill9-all": kill9_all, "sigterm": sigterm,
    "slack500": slack500, "slack429": slack429, "model-hang": model_hang,
    "model-garbage": model_garbage, "kill9-marks": kill9_marks,
}  # fmt: skip
MODEL_REPLIES = {
    "model-hang": hang(),
    "model-garbage": raw_body("<html>oops</html>"),
    "sigterm": slow(2.0, answer(status="insufficient_context", message="Not in these docs.")),
}
MODEL = """answer:
  generator: openai
  model: fault-model
  api: chat
  reasoning_effort: null
  timeout_seconds: 2
  max_retries: 2
  deadline_seconds: 6
"""


async def _scenario(name: str, n: int, base: int, root: Path) -> Result:
    folder = root / name
    folder.mkdir()
    config_path = write_config(folder)
    uses_model = name.startswith("model-") or name == "sigterm"
    if uses_model:
        text = config_path.read_text(encoding="utf-8")
        config_path.write_text(text.replace("answer:\n  generator: extractive\n", MODEL))
    build_index(load_config(config_path))
    model = FakeOpenAI() if uses_model else None
    started = time.monotonic()
    slack = with_channels(FakeSlack(team_id="T0DOCBOT"))
    await slack.start()
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(slack.stop)
        if model is not None:
            await stack.enter_async_context(model)
            model.always("chat", MODEL_REPLIES[name])
        if name in ("slack500", "slack429"):
            slack.fail_next("auth.test", 500 if name == "slack500" else 429, count=1,
                            retry_after=1 if name == "slack429" else None)  # fmt: skip
        serve = Serve(config_path, free_port(), serve_env(slack, model), folder)
        stack.push_async_callback(serve.stop)
        session = await stack.enter_async_context(aiohttp.ClientSession())
        await serve.start()
        world = World(slack, serve, session, base, model)
        note = await SCENARIOS[name](world, n)
        sent, counted = world.tally or (n, world.replies(n))
        return Result(name, sent, counted, time.monotonic() - started, note)
    raise AssertionError("unreachable")


async def _run(names: list[str], n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="docbot-faults-") as tmp:
        results = []
        for i, name in enumerate(names):
            try:
                results.append(await _scenario(name, n, 3_000_000 + i * 1000, Path(tmp)))
            except Exception as exc:  # a benchmark reports what broke and goes on
                results.append(Result(name, n, note=f"FAILED: {exc}"))
            print(results[-1].row(), flush=True)
        print()
        print("| scenario | mentions sent | answered | duplicated | lost | seconds | notes |")
        print("|---|---|---|---|---|---|---|")
        for result in results:
            print(result.row())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mentions", type=int, default=20, help="mentions per scenario")
    parser.add_argument("--only", default="", help="comma-separated scenario names")
    parser.add_argument("--serve-tree", type=Path, help="run docbot serve from this checkout")
    args = parser.parse_args()
    if args.serve_tree:
        SERVE_TREE.append(args.serve_tree.resolve())
    names = [s for s in args.only.split(",") if s] or list(SCENARIOS)
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenario(s) {unknown}; choose from {list(SCENARIOS)}")
    asyncio.run(_run(names, args.mentions))


if __name__ == "__main__":
    main()
