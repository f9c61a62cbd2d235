"""Slack app latency: how fast a mention is acknowledged and answered, end to end on loopback.

The real Bolt app over signed HTTP (as `docbot serve` runs it), the real pipeline (index over
tests/bot/corpus, extractive generator) and the test suite's fake Slack Web API on 127.0.0.1.
Prints ack and threaded-reply latency for sequential mentions, then a burst of concurrent ones.

    python -m benchmarks.slack_latency [--mentions 60] [--burst 30]   (from the repo root: it
    borrows the test suite's fake Slack, so it runs as a module)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import write_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import RunningApp, fake_slack, mention, running_app

QUESTIONS = (
    "how do I roll back a deploy?",
    "when should I roll back?",
    "who is on call?",
    "what is the capital of Australia?",
)


def _ms(seconds: list[float], q: float) -> float:
    return statistics.quantiles(seconds, n=100)[int(q) - 1] * 1000 if len(seconds) > 1 else 0.0


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


async def _run(mentions: int, burst: int, folder: Path) -> None:
    config = load_config(write_config(folder))
    build_index(config)
    answerer = make_pipeline(config, Index.load(config), ExtractiveGenerator())
    store = SQLiteAnswerStore(folder / "answers.sqlite3")
    try:
        async with fake_slack() as slack, running_app(slack, config, answerer, store) as app:
            slack.set_channel("C0GENERAL", is_channel=True, name="general")
            timings = [await _one(app, slack, n) for n in range(mentions)]
            acks, replies = [t[0] for t in timings], [t[1] for t in timings]
            print(f"sequential mentions: {mentions}")
            print(f"  ack    p50 {_ms(acks, 50):6.1f} ms   p95 {_ms(acks, 95):6.1f} ms")
            print(f"  reply  p50 {_ms(replies, 50):6.1f} ms   p95 {_ms(replies, 95):6.1f} ms")
            started = time.monotonic()
            results = await asyncio.gather(*(_one(app, slack, mentions + n) for n in range(burst)))
            print(f"burst of {burst} concurrent mentions:")
            print(f"  all acknowledged within {max(r[0] for r in results) * 1000:.0f} ms")
            print(f"  all answered within {(time.monotonic() - started) * 1000:.0f} ms")
            # Let the last :eyes: removals land before the fake Slack goes away.
            await slack.wait_for("reactions.remove", count=mentions + burst, timeout=30)
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--mentions", type=int, default=60)
    parser.add_argument("--burst", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_run(args.mentions, args.burst, Path(folder)))


if __name__ == "__main__":
    main()
