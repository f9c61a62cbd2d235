"""Streamed answers: how soon the asker sees the first verified claim, and the finished reply,
with a model that takes 2-3 s to write its answer; streaming (chat.startStream/appendStream/
stopStream) against today's single post (the same app, on a workspace that refuses streaming).

The real Bolt app over signed HTTP, the real pipeline (index over tests/bot/corpus) and the real
OpenAI client against the test suite's fake model server, which streams its answer paced over
`--pace` seconds, and the fake Slack Web API; times are when the fake Slack received each call.

    python -m benchmarks.slack_stream [--questions 5] [--pace 2.0 3.0]   (from the repo root)
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
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from retrieval.config import load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import write_config
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import RunningApp, fake_slack, mention, running_app, with_channels
from tests.grounding.fake_openai import FakeOpenAI, answer, loopback_http_client, paced

QUESTION = "how do I roll back a deploy?"
# Four claims the evidence supports and one it does not (dropped, never shown), like a model's.
CLAIMS = [
    (text, ["E1"], [text])
    for text in (
        "Roll back when the error rate doubles within thirty minutes of a deploy.",
        "Do not wait for the on-call engineer to confirm: rolling back is always safe.",
        "Run `make rollback ENV=production` to return to the previous release.",
        "The rollback keeps the database schema, because every migration is backwards compatible.",
    )
]
CLAIMS.insert(2, ("Roll back within 5 minutes.", ["E1"], ["Roll back"]))
FIRST = ("chat.startStream", "chat.postMessage")
DONE = ("chat.stopStream", "chat.postMessage")


async def _one(app: RunningApp, slack: FakeSlack, n: int) -> tuple[float, float]:
    """(seconds to the first verified claim in Slack, seconds to the finished reply)."""
    ts = f"{2000 + n}.000100"
    body = mention(QUESTION, channel="C0GENERAL", ts=ts, event_id=f"EvStream{n}",
                   bot_user_id=slack.bot_user_id)  # fmt: skip
    started = time.monotonic()
    status, _ = await app.send(body)
    assert status == 200, status
    await app.settle(timeout=30)
    mine = [c for c in slack.calls if c.response.get("ok") and _in_reply_to(c, ts, slack)]
    first = min(c.at for c in mine if c.method in FIRST)
    done = max(c.at for c in mine if c.method in DONE)
    return first - started, done - started


def _in_reply_to(call: object, ts: str, slack: FakeSlack) -> bool:
    params = getattr(call, "params", {})
    if params.get("thread_ts") == ts:
        return True
    message = slack.message("C0GENERAL", str(params.get("ts", "")))
    return message is not None and message.get("thread_ts") == ts


async def _mode(
    folder: Path, pace: float, questions: int, stream: bool
) -> list[tuple[float, float]]:
    config = load_config(write_config(folder))
    store = SQLiteAnswerStore(folder / f"answers-{pace}-{stream}.sqlite3")
    async with FakeOpenAI() as server:
        server.always("responses", paced(pace, answer(CLAIMS)))
        client = make_openai_client("sk-bench", server.base_url, http_client=loopback_http_client())
        pipeline = make_pipeline(config, Index.load(config), OpenAIGenerator(client, "gpt"))
        async with fake_slack() as slack, running_app(with_channels(slack), config, pipeline,
                                                        store) as app:  # fmt: skip
            if not stream:
                slack.refuse("chat.startStream", "not_allowed")  # today's single post
            times = [await _one(app, slack, n) for n in range(questions)]
        await client.close()
    store.close()
    return times


def _summary(label: str, times: list[tuple[float, float]]) -> str:
    first = [f for f, _ in times]
    done = [d for _, d in times]
    return (
        f"{label:<12} first verified claim median {statistics.median(first):5.2f} s "
        f"(max {max(first):5.2f})   finished reply median {statistics.median(done):5.2f} s "
        f"(max {max(done):5.2f})"
    )


async def _run(questions: int, paces: list[float], folder: Path) -> None:
    build_index(load_config(write_config(folder)))
    for pace in paces:
        print(f"model writes its answer over {pace:.1f} s, {questions} questions each:")
        for stream in (True, False):
            times = await _mode(folder, pace, questions, stream)
            print("  " + _summary("streaming" if stream else "single post", times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=5)
    parser.add_argument("--pace", type=float, nargs="+", default=[2.0, 3.0])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(_run(args.questions, args.pace, Path(folder)))


if __name__ == "__main__":
    main()
