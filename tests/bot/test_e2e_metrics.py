"""/metrics over real HTTP on loopback: the values move when docbot answers, drops a duplicate
delivery, fails a Slack call and records feedback."""

from __future__ import annotations

import asyncio

from prometheus_client.parser import text_string_to_metric_families

from bot.app import Answerer
from bot.metrics import Metrics
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.e2e import ask, stored_reply
from tests.bot.harness import GENERAL, RunningApp, fake_slack, reaction, running_app, with_channels

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(app: RunningApp) -> Samples:
    """Every sample /metrics serves, by name and labels."""
    async with app.session.get(app.url.replace("/slack/events", "/metrics")) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        text = await response.text()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_metrics_count_an_answered_question_and_its_stages(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store, metrics=Metrics()) as app,
        ):
            before = await scrape(app)
            question = ask(slack, "how do I roll back a deploy?", GENERAL, "71.000100")
            await app.send(question)
            await slack.wait_for("chat.postMessage")
            await app.settle()
            after = await scrape(app)
            await app.send(question, retry=1)  # Slack's retry: answered already
            await app.settle()
            again = await scrape(app)

        answered = ("docbot_questions_total", (("status", "answered"),))
        assert answered not in before and after[answered] == 1
        for stage in ("answer", "retrieve", "pack", "generate", "verify"):
            assert after[("docbot_stage_seconds_count", (("stage", stage),))] == 1
            assert after[("docbot_stage_seconds_sum", (("stage", stage),))] > 0
        assert after[("docbot_answers_in_flight", ())] == 0
        assert again[answered] == 1
        assert again[("docbot_deliveries_dropped_total", (("reason", "done"),))] == 1

    asyncio.run(main())


def test_metrics_count_slack_errors_by_method_and_feedback_marks(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store, metrics=Metrics()) as app,
        ):
            # The working status is cosmetic, one try: its failure is final, and counted.
            slack.fail_next("assistant.threads.setStatus", 500)
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "72.000100"))
            reply_ts = await stored_reply(slack, store)
            await app.settle()
            x = reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvMX1")
            await app.send(x)
            await app.settle()
            marked = await scrape(app)
            await app.send(reaction(False, "x", channel=GENERAL, item_ts=reply_ts,
                                    event_id="EvMX2"))  # fmt: skip
            await app.settle()
            retracted = await scrape(app)

        errors = ("docbot_slack_api_errors_total", (("method", "assistant.threads.setStatus"),))
        assert marked[errors] == 1
        assert ("docbot_slack_api_errors_total", (("method", "chat.postMessage"),)) not in marked
        wrong_added = ("docbot_feedback_marks_total", (("change", "added"), ("kind", "wrong")))
        wrong_removed = ("docbot_feedback_marks_total", (("change", "removed"), ("kind", "wrong")))
        assert marked[wrong_added] == 1 and wrong_removed not in marked
        assert retracted[wrong_removed] == 1

    asyncio.run(main())


def test_metrics_of_two_apps_in_one_process_are_their_own(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """One registry per app, not prometheus_client's global one: a second app starts at zero
    (and registering its instruments does not collide with the first's)."""
    config, answerer = indexed

    async def main() -> None:
        async with fake_slack() as slack:
            with_channels(slack)
            async with running_app(slack, config, answerer, store, metrics=Metrics()) as first:
                await first.send(ask(slack, "who is on call?", GENERAL, "73.000100"))
                await slack.wait_for("chat.postMessage")
                await first.settle()
                async with running_app(slack, config, answerer, store, metrics=Metrics()) as second:
                    one, other = await scrape(first), await scrape(second)
        assert sum(v for (name, _), v in one.items() if name == "docbot_questions_total") == 1
        assert not [name for name, _ in other if name == "docbot_questions_total"]

    asyncio.run(main())
