"""Two replicas on one store streaming answers from the model: the one a crash test kills
mid-answer and the one that resumes its question (tests/bot/test_e2e_stream_*_crash.py). Both
serve the real pipeline, whose real openai client talks to the fake model server streaming
test_e2e_streaming's CLAIMS, paced so a test can stop the killed run between its calls."""

from __future__ import annotations

from asyncio import Event
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.resume import Resumer
from bot.store import AnswerStore
from retrieval.config import Config
from tests.bot.e2e import ask
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp, two_replicas
from tests.bot.model_pipeline import model_pipeline
from tests.bot.test_e2e_streaming import CLAIMS, QUESTION
from tests.grounding.fake_openai import FakeOpenAI, answer, paced


@dataclass(frozen=True, slots=True)
class Replicas:
    server: FakeOpenAI
    slack: FakeSlack
    killed: RunningApp  # the replica a test stops mid-answer
    next_app: RunningApp  # the one taking its question over (it holds the resumer)


@asynccontextmanager
async def stream_replicas(
    config: Config, store: AnswerStore, resumer: Resumer
) -> AsyncIterator[Replicas]:
    async with FakeOpenAI() as server:
        server.always("responses", paced(0.05, answer(CLAIMS)))
        async with (
            model_pipeline(config, server) as pipeline,
            two_replicas(config, pipeline, store, resumer=resumer) as replicas,
        ):
            yield Replicas(server, *replicas)


async def stream_held(slack: FakeSlack, app: RunningApp, question_ts: str) -> tuple[Event, str]:
    """Ask `app` the streamed question, with the stream held at its first append: the reply is
    being written, its answer not yet stored. The event lets the stream go on; the str is its
    message's ts."""
    gate = slack.hold("chat.appendStream")
    await app.send(ask(slack, QUESTION, GENERAL, question_ts))
    (append,) = await slack.wait_for("chat.appendStream", timeout=10)
    return gate, str(append.params["ts"])
