"""Private replies (chat.postEphemeral, a command's response_url) cannot be read back, so docbot
never re-sends one blind: when Slack may have shown it but its answer is lost (a 5xx after the
post, a dropped connection), the asker gets one copy at most and, for a `/docbot` answer, a word
that it may not have arrived; the question is settled, so no later sweep answers it again. Only
a 429, which Slack turns away before acting on it, is retried."""

from __future__ import annotations

import pytest

from bot.app import Answerer
from bot.resume import Resumer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import TEAM
from tests.bot.e2e import run, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp
from tests.bot.test_e2e_escalation import _not_found_reply, _press, _with_owners

QUESTION = "how do I roll back a deploy?"


def _command(slack: FakeSlack, text: str = QUESTION) -> dict[str, str]:
    return payloads.slash_command(
        text, team=TEAM, channel=GENERAL, user=ASKER, trigger_id="9.9.lost",
        response_url=slack.response_url(f"{TEAM}/1/hook"),
    )  # fmt: skip


@pytest.mark.parametrize("lost", [500, None], ids=["http-500", "dropped-connection"])
def test_app_a_private_answer_slack_may_have_shown_is_not_sent_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, lost: int | None
) -> None:
    config, answerer = indexed
    resumer = Resumer()

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.lose_next_answer("chat.postEphemeral", lost)
        assert (await app.command(_command(slack)))[0] == 200
        (said,) = await slack.wait_for("response_url")
        await app.settle()
        assert await resumer.sweep() == 0  # settled: no sweep answers it again
        await app.settle()
        (answer,) = slack.calls_to("chat.postEphemeral")  # shown once, at most
        assert "roll back" in str(answer.params["text"]).lower()
        assert said.params["response_type"] == "ephemeral"
        assert "did not confirm that my answer reached you" in said.params["text"]
        assert len(slack.calls_to("response_url")) == 1

    run(config, answerer, store, scenario, resumer=resumer)


def test_app_a_rate_limited_private_answer_is_retried(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postEphemeral", 429, retry_after=1)
        await app.command(_command(slack))
        await slack.wait_for("chat.postEphemeral", count=2)
        await app.settle()
        first, second = slack.calls_to("chat.postEphemeral")
        assert first.status == 429 and second.response.get("ok")
        assert slack.calls_to("response_url") == []
        assert app.waits.seconds and app.waits.seconds[0] >= 1

    run(config, answerer, store, scenario)


def test_app_a_private_word_slack_may_have_shown_is_not_sent_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """The presser's confirmation after "Still need help?" (replies.tell) is shown once."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        slack.lose_next_answer("chat.postEphemeral", 500)
        await app.interact(_press(GENERAL, reply_ts, ASKER))
        await app.settle()
        (told,) = slack.calls_to("chat.postEphemeral")
        assert str(told.params["text"]).startswith("Done")

    run(_with_owners(config), answerer, store, scenario)


@pytest.mark.parametrize("question", [QUESTION, ""])
def test_app_the_not_a_member_word_is_said_once(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, question: str
) -> None:
    """Slack refuses the private reply where docbot is not a member; the asker is told through
    the response_url once: the command is settled, so no sweep answers it again (and says it
    again, up to the response_url's five uses)."""
    config, answerer = indexed
    resumer = Resumer()

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("chat.postEphemeral", "not_in_channel")
        await app.command(_command(slack, question))
        await slack.wait_for("response_url")
        await app.settle()
        assert await resumer.sweep() == 0
        await app.settle()
        assert len(slack.calls_to("response_url")) == 1
        assert len(slack.calls_to("chat.postEphemeral")) == 1

    run(config, answerer, store, scenario, resumer=resumer)


def test_app_a_response_url_post_that_dropped_is_not_sent_again(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A dropped connection after the response_url took the word may have delivered it:
    slack_sdk's webhook client would send it again; docbot does not."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.refuse("chat.postEphemeral", "not_in_channel")
        slack.lose_next_answer("response_url")
        await app.command(_command(slack))
        await slack.wait_for("response_url")
        await app.settle()
        assert len(slack.calls_to("response_url")) == 1

    run(config, answerer, store, scenario)
