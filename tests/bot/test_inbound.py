"""bot/inbound.py's checks alone, with an injected clock: the edges of the timestamp window,
and which Socket Mode envelopes go to Bolt."""

from __future__ import annotations

import hashlib
import hmac

from bot.inbound import MAX_CLOCK_SKEW_SECONDS, check_payload, check_signed

SECRET = "inbound-secret"
NOW = 1_700_000_000.0
EVENT = {"type": "event_callback", "team_id": "T0", "event_id": "Ev1", "event": {"type": "x"}}


def _headers(body: bytes, stamp: str, secret: str = SECRET) -> dict[str, str]:
    digest = hmac.new(secret.encode(), b"v0:" + stamp.encode() + b":" + body, hashlib.sha256)
    return {"X-Slack-Request-Timestamp": stamp, "X-Slack-Signature": "v0=" + digest.hexdigest()}


def test_check_signed_accepts_the_whole_window_and_nothing_outside() -> None:
    body = b'{"type": "event_callback"}'
    for skew in (-MAX_CLOCK_SKEW_SECONDS, 0, MAX_CLOCK_SKEW_SECONDS):
        assert check_signed(body, _headers(body, str(int(NOW) + skew)), SECRET, lambda: NOW) is None
    for skew in (-MAX_CLOCK_SKEW_SECONDS - 1, MAX_CLOCK_SKEW_SECONDS + 1):
        verdict = check_signed(body, _headers(body, str(int(NOW) + skew)), SECRET, lambda: NOW)
        assert verdict is not None and verdict.status == 401 and "clock" in verdict.reason


def test_check_signed_wants_digits_and_the_right_secret() -> None:
    body = b"{}"
    for stamp in ("1e9", " 1700000000", "1700000000.5", "+1700000000", "１７００"):
        verdict = check_signed(body, _headers(body, stamp), SECRET, lambda: NOW)
        assert verdict is not None and verdict.status == 401 and "Unix time" in verdict.reason
    wrong = check_signed(body, _headers(body, str(int(NOW)), "other"), SECRET, lambda: NOW)
    assert wrong is not None and "bad signature" in wrong.reason
    assert check_signed(body, {}, SECRET, lambda: NOW) is not None


def test_check_payload_sends_only_events_api_envelopes_to_bolt() -> None:
    assert check_payload(EVENT, "events_api").dispatch
    assert check_payload(EVENT).dispatch
    verdict = check_payload({"type": "block_actions"}, "hello")
    assert verdict.status == 200 and "hello" in verdict.reason
    verdict = check_payload({"type": "block_actions"}, "slash_commands")
    assert verdict.status == 200 and "block_actions" in verdict.reason
    command = {"command": "/docbot", "team_id": "T1", "channel_id": "C1", "user_id": "U1"}
    assert check_payload(command, "slash_commands").dispatch and check_payload(command).dispatch
    assert check_payload({"command": "/docbot"}, "slash_commands").status == 400
    pressed = {"type": "block_actions", "team": {"id": "T1"}, "user": {"id": "U1"}}
    assert check_payload(pressed, "interactive").dispatch
    assert check_payload({"type": "block_actions"}, "interactive").status == 400
    assert check_payload(EVENT, "interactive").status == 200
    challenge = {"type": "url_verification", "challenge": "c"}
    assert check_payload(challenge).dispatch and not check_payload(challenge, "events_api").dispatch
    assert check_payload([EVENT], "events_api").status == 400
