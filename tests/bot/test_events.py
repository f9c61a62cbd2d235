"""Slack payload slices: what counts as a question, the question text, reactions."""

from __future__ import annotations

from typing import Any

import pytest

from bot.events import mentions, parse_reaction, parse_turn, question_text

BOT = "U0DOCBOT"


def delivery(**event: Any) -> dict[str, Any]:
    base = {"type": "app_mention", "channel": "C1", "user": "U1", "ts": "1.000100", "text": ""}
    return {"team_id": "T1", "event_id": "Ev1", "event": {**base, **event}}


@pytest.mark.parametrize(
    ("text", "question"),
    [
        (f"<@{BOT}> how do I roll back?", "how do I roll back?"),
        (f"<@{BOT}|docbot>   how do I roll back?", "how do I roll back?"),
        (f"hey <@{BOT}> what does <@U0OTHER> own?", "hey what does own?"),
        (
            f"<@{BOT}> How do I disable SSL verification? cc <@U0BOB>",
            "How do I disable SSL verification? cc",
        ),
        (
            f"<@{BOT}> <@U0BOB|bob> asked: how do I follow redirects?",
            "asked: how do I follow redirects?",
        ),
        (
            f"<@{BOT}> <!here> is <#C0DEPLOY|deploys> the place? <!subteam^S0OPS|@ops>",
            "is #deploys the place?",
        ),
        (
            f"<@{BOT}> see <https://x.example/a?b=1&amp;c=2|the runbook> and <https://y.example>",
            "see the runbook and https://y.example",
        ),
        (
            f"<@{BOT}> after <!date^1392734382^{{date_short}}|Feb 18, 2014> and <#C0NONAME>?",
            "after Feb 18, 2014 and ?",
        ),
        (f"<@{BOT}> is &lt;@U0BOB&gt; literal?", "is <@U0BOB> literal?"),
        (f"<@{BOT}> is a &lt; b &amp;&amp; c &gt; d?", "is a < b && c > d?"),
        (f"<@{BOT}> what is &amp;lt;?", "what is &lt;?"),
        (f"<@{BOT}>", ""),
        (f"<@{BOT}> line one\nline two", "line one\nline two"),
    ],
)
def test_question_text_turns_slack_markup_into_plain_text(text: str, question: str) -> None:
    assert question_text(text, BOT) == question


def test_parse_turn_reads_thread_and_external_flags() -> None:
    body = delivery(text=f"<@{BOT}> and then?", thread_ts="0.000900", ts="1.000100")
    body["is_ext_shared_channel"] = True
    turn = parse_turn(body, BOT)
    assert turn is not None
    assert (turn.team, turn.channel, turn.user, turn.text) == ("T1", "C1", "U1", "and then?")
    assert turn.in_thread and turn.reply_thread == "0.000900" and turn.ext_shared


def test_parse_turn_top_level_message_starts_its_own_thread() -> None:
    turn = parse_turn(delivery(text="hi"), BOT)
    assert turn is not None and not turn.in_thread and turn.reply_thread == "1.000100"


@pytest.mark.parametrize(
    "event",
    [
        {"subtype": "message_changed"},
        {"subtype": "bot_message", "bot_id": "B1"},
        {"bot_id": "B0OTHER"},
        {"user": BOT},
        {"user": None},
        {"channel": None},
    ],
)
def test_parse_turn_ignores_edits_bots_itself_and_malformed(event: dict[str, Any]) -> None:
    body = delivery(**event)
    body["event"] = {k: v for k, v in body["event"].items() if v is not None}
    assert parse_turn(body, BOT) is None


def test_parse_reaction_strips_skin_tones_and_ignores_files() -> None:
    event = {"type": "reaction_added", "user": "U1", "reaction": "+1::skin-tone-3",
             "item": {"type": "message", "channel": "C1", "ts": "2.000100"}}  # fmt: skip
    reaction = parse_reaction({"team_id": "T1", "event_id": "Ev2", "event": event})
    assert reaction is not None and (reaction.emoji, reaction.ts) == ("+1", "2.000100")
    event["item"] = {"type": "file", "file": "F1"}
    assert parse_reaction({"team_id": "T1", "event_id": "Ev3", "event": event}) is None


def test_mentions_needs_the_bots_own_id() -> None:
    assert mentions(f"see <@{BOT}|docbot>", BOT)
    assert not mentions("see <@U0OTHER>", BOT)
    assert not mentions(f"see <@{BOT}>", None)
