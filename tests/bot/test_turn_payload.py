"""A turn as the event ledger keeps it: read back into the same Turn, or None when unreadable."""

from __future__ import annotations

from bot.events import Turn, parse_turn
from tests.bot import payloads


def test_turn_payload_round_trips() -> None:
    body = payloads.app_mention(
        "how do I roll back? <https://x.example|the runbook>", team="T1", channel="C1",
        user="U1", ts="2.000100", event_id="Ev2", bot_user_id="U0BOT", thread_ts="1.000100",
    )  # fmt: skip
    turn = parse_turn(body, "U0BOT")
    assert turn is not None
    assert Turn.from_payload(turn.to_payload()) == turn


def test_turn_payload_that_is_not_a_turn_reads_as_none() -> None:
    for payload in ("", "not json", "[1, 2]", '{"event_id": "Ev1"}', '{"unknown": 1}'):
        assert Turn.from_payload(payload) is None
