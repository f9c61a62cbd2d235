""" "Still need help?" end to end: offered on a not-found and after a thumbs down, it posts one
note in the thread mentioning exactly the owners of the collections searched or cited; only the
asker or a channel member may press it (asked of Slack, fail closed), and it fires once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.app import Answerer
from bot.render.escalation import ESCALATE_ACTION
from bot.render.feedback import FEEDBACK_ACTION
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.conftest import PAYMENTS_CHANNEL, TEAM
from tests.bot.e2e import ask, posted_ts, reason_submission, run, until
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import ASKER, GENERAL, RunningApp, reaction

OWNERS = {"handbook": ("<!subteam^S0DOCS>", "U0OWNER"), "payments": ("U0PAYOWNER",)}
UNANSWERABLE = "what is the airspeed of an unladen swallow <!channel>? R&amp;D &lt;!here&gt;"
TEAMMATE, STRANGER = "U0TEAMMATE", "U0STRANGER"


def _with_owners(config: Config) -> Config:
    collections = tuple(c.model_copy(update={"owners": OWNERS[c.name]}) for c in config.collections)
    return config.model_copy(update={"collections": collections})


def _press(channel: str, message_ts: str, user: str, value: str = "answer") -> dict[str, Any]:
    return payloads.block_actions(
        ESCALATE_ACTION, value, team=TEAM, channel=channel, user=user, message_ts=message_ts,
        thread_ts="30.000100", action_type="button",
    )  # fmt: skip


def _notes(slack: FakeSlack) -> list[Call]:
    return [c for c in slack.posted() if "still needs help" in str(c.params.get("text"))]


async def _not_found_reply(slack: FakeSlack, app: RunningApp, channel: str) -> str:
    await app.send(ask(slack, UNANSWERABLE, channel, "30.000100"))
    (reply,) = await slack.wait_for("chat.postMessage")
    assert reply.params["blocks"][-1]["elements"][0]["action_id"] == ESCALATE_ACTION
    return posted_ts(reply)


@pytest.mark.parametrize(
    ("channel", "mentioned", "not_mentioned"),
    [
        (GENERAL, ["<!subteam^S0DOCS>", "<@U0OWNER>"], ["U0PAYOWNER"]),
        (PAYMENTS_CHANNEL, ["<!subteam^S0DOCS>", "<@U0OWNER>", "<@U0PAYOWNER>"], []),
    ],
)
def test_app_not_found_escalates_once_to_exactly_the_searched_collections_owners(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, channel: str,
    mentioned: list[str], not_mentioned: list[str],
) -> None:  # fmt: skip
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.members[channel] = [ASKER, TEAMMATE]
        reply_ts = await _not_found_reply(slack, app, channel)
        await until(lambda: store.find_answer(TEAM, channel, reply_ts) is not None)
        # The asker and a teammate press at once: one note, whoever wins.
        await asyncio.gather(
            app.interact(_press(channel, reply_ts, ASKER)),
            app.interact(_press(channel, reply_ts, TEAMMATE)),
        )
        await app.settle()
        await app.interact(_press(channel, reply_ts, ASKER))
        await app.settle()
        (note,) = _notes(slack)
        assert note.params["thread_ts"] == "30.000100" and note.params["channel"] == channel
        text = note.params["blocks"][0]["text"]["text"]
        for owner in mentioned:
            assert owner in text
        for owner in not_mentioned:
            assert owner not in text
        assert "unladen swallow" in text and "R&amp;D &lt;!here&gt;" in text  # escaped
        assert "<!channel" not in text and "<!here" not in text  # pings nobody
        said = [c.params["text"] for c in slack.calls_to("chat.postEphemeral")]
        assert len(said) == 3 and sum(s.startswith("Done") for s in said) == 1
        # The press that lost the race hears "already asked" once the note is confirmed, or,
        # if it came while the note was still being posted, to press again if none shows up.
        waited = ("already asked", "has not confirmed the request yet")
        assert sum(any(w in s for w in waited) for s in said) == 2 and "already asked" in said[-1]

    run(_with_owners(config), answerer, store, scenario)


def test_app_escalation_only_for_the_asker_or_a_member_and_fails_closed(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        reply_ts = await _not_found_reply(slack, app, GENERAL)
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        # conversations.members fails (no such channel in the fake): nobody but the asker.
        await app.interact(_press(GENERAL, reply_ts, TEAMMATE))
        (refused,) = await slack.wait_for("chat.postEphemeral")
        assert "Only the person who asked" in refused.params["text"]
        slack.members[GENERAL] = [ASKER, TEAMMATE]
        await app.interact(_press(GENERAL, reply_ts, STRANGER))
        await slack.wait_for("chat.postEphemeral", 2)
        assert _notes(slack) == []
        await app.interact(_press(GENERAL, reply_ts, TEAMMATE))
        await until(lambda: len(_notes(slack)) == 1)
        assert f"<@{TEAMMATE}> still needs help" in _notes(slack)[0].params["text"]

    run(_with_owners(config), answerer, store, scenario)


def test_app_thumbs_down_offers_escalation_to_the_cited_collections_owners(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", PAYMENTS_CHANNEL, "30.000100"))
        reply_ts = posted_ts((await slack.wait_for("chat.postMessage"))[0])
        await until(lambda: store.find_answer(TEAM, PAYMENTS_CHANNEL, reply_ts) is not None)
        await app.interact(
            payloads.block_actions(FEEDBACK_ACTION, "wrong", team=TEAM, channel=PAYMENTS_CHANNEL,
                                   user=ASKER, message_ts=reply_ts, thread_ts="30.000100")
        )  # fmt: skip
        (opened,) = await slack.wait_for("views.open")
        metadata = opened.params["view"]["private_metadata"]
        await app.interact(reason_submission(metadata, "incomplete", None))
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        button = thanks.params["blocks"][-1]["elements"][0]
        assert (button["action_id"], button["value"]) == (ESCALATE_ACTION, reply_ts)
        # Pressed on that private note: the message pressed is the note, the value the answer.
        await app.interact(_press(PAYMENTS_CHANNEL, "31.000200", ASKER, value=reply_ts))
        await until(lambda: len(_notes(slack)) == 1)
        text = _notes(slack)[0].params["text"]
        assert "<@U0OWNER>" in text and "U0PAYOWNER" not in text  # cited: handbook only

    run(_with_owners(config), answerer, store, scenario)


def test_app_wrong_reaction_thanks_offer_escalation_when_the_docs_have_owners(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "32.000100"))
        reply_ts = posted_ts((await slack.wait_for("chat.postMessage"))[0])
        await until(lambda: store.find_answer(TEAM, GENERAL, reply_ts) is not None)
        await app.send(reaction(True, "x", channel=GENERAL, item_ts=reply_ts, event_id="EvX32"))
        (thanks,) = await slack.wait_for("chat.postEphemeral")
        assert "Thanks for flagging this answer as wrong" in thanks.params["text"]
        button = thanks.params["blocks"][-1]["elements"][0]
        assert (button["action_id"], button["value"]) == (ESCALATE_ACTION, reply_ts)

    run(_with_owners(config), answerer, store, scenario)
