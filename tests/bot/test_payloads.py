"""Our payload builder against the real Slack payloads: same keys, nesting and JSON types.

The e2e suite replays tests/bot/payloads.py; this is the one place it is held to real deliveries
(../shared/slack/fixtures), so only these comparisons skip when ../shared is absent.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.events import parse_reaction, parse_turn
from tests.bot import payloads

BOT = "U0DOCBOT"
IDS = {"team": "T0DOCBOT", "user": "U0ASKER", "bot_user_id": BOT}
real = payloads.real


def shape(value: Any, at: str = "$") -> dict[str, str]:
    """Every key path with its JSON type; list items are merged under `[]`."""
    if isinstance(value, dict):
        found = {at: "object"}
        for key, item in value.items():
            found.update(shape(item, f"{at}.{key}"))
        return found
    if isinstance(value, list):
        found = {at: "array"}
        for item in value:
            found.update(shape(item, f"{at}[]"))
        return found
    names = {bool: "boolean", int: "number", float: "number", str: "string", type(None): "null"}
    return {at: names[type(value)]}


def mention(text: str = "how do I roll back?", *, thread_ts: str | None = None) -> dict[str, Any]:
    return payloads.app_mention(
        text, channel="C0GENERAL", ts="1.000100", event_id="Ev1", thread_ts=thread_ts,
        team=IDS["team"], user=IDS["user"], bot_user_id=BOT,
    )  # fmt: skip


def empty_mention() -> dict[str, Any]:
    """The real fixture is a bare mention, so its rich text holds no `text` element."""
    return mention("")


def direct() -> dict[str, Any]:
    return payloads.direct_message(
        "hello", channel="D0DIRECT", ts="1.000100", event_id="Ev2", **IDS
    )


def reaction(added: bool) -> dict[str, Any]:
    ids = {**IDS, "user": "U0OTHER"}
    return payloads.reaction(
        added, "x", channel="C0GENERAL", item_ts="1.000200", item_user=BOT, event_id="Ev3", **ids
    )


# Keys our builder has that a real delivery may lack (documented optional, or newer than the
# docs' example): anything else extra, missing or differently typed fails the comparison.
OPTIONAL = {"$.authorizations[].enterprise_id"}


@pytest.mark.parametrize(
    ("fixture", "built"),
    [
        ("app_mention.json", empty_mention),
        ("message_im.json", direct),
        ("reaction_added.json", lambda: reaction(True)),
        ("reaction_removed.json", lambda: reaction(False)),
        ("url_verification.json", lambda: payloads.url_verification("c" * 32)),
    ],
)
def test_payloads_match_the_shape_of_real_deliveries(fixture: str, built: Any) -> None:
    expected, actual = shape(real(fixture)), shape(built())
    assert {k: v for k, v in actual.items() if k not in OPTIONAL or k in expected} == expected


def test_payloads_socket_mode_envelope_matches_the_real_one() -> None:
    expected = shape(real("socket_mode_envelope_app_mention.json"))
    assert shape(payloads.socket_mode_envelope(empty_mention(), envelope_id="e1")) == expected


def test_payloads_mention_in_a_thread_adds_the_parent_like_slack_does() -> None:
    body = mention(thread_ts="0.000900")
    in_thread = shape(body)
    assert set(in_thread) - set(shape(mention())) == {"$.event.thread_ts", "$.event.parent_user_id"}
    assert body["event"]["parent_user_id"] == IDS["user"]


def test_payloads_parse_as_the_turns_and_reactions_they_describe() -> None:
    turn = parse_turn(mention(thread_ts="0.000900"), BOT)
    assert turn is not None and turn.text == "how do I roll back?" and turn.in_thread
    dm = parse_turn(direct(), BOT)
    assert dm is not None and dm.channel_type == "im" and dm.text == "hello"
    removed = parse_reaction(reaction(False))
    assert removed is not None and (removed.emoji, removed.ts) == ("x", "1.000200")
