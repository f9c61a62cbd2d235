"""Garbage at the HTTP endpoint, through the real aiohttp app on 127.0.0.1: a request Slack did
not sign gets 401, a signed one that is not a payload 400, a payload docbot does not serve 200;
never a 500 or a traceback, and exactly one log line, without the body."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from typing import Any
from urllib.parse import quote

import pytest

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, SIGNING_SECRET, RunningApp

MARK = "kumquat-body-4471"  # in every body below: it must never reach a log line
FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
# body, content type, header tweaks (ts, age, sig), signing (good, wrong, none)
Case = tuple[bytes, str, dict[str, str], str]


def _event(event: object, **extra: Any) -> bytes:
    body = {"type": "event_callback", "team_id": TEAM, "event_id": "EvHOSTILE", "event": event,
            "note": MARK, **extra}  # fmt: skip
    return json.dumps(body).encode()


def _form(payload: object) -> bytes:
    return f"payload={quote(json.dumps(payload))}".encode()


UNSIGNED: dict[str, Case] = {
    "malformed JSON": (b'{"type": "event_callback", ' + MARK.encode(), JSON, {}, "none"),
    "not UTF-8": (b"\xff\xfe{" + MARK.encode() + b"\x80", JSON, {}, "none"),
    "form junk": (b"a=%zz&&=&payload=%7B" + MARK.encode(), FORM, {}, "none"),
    "wrong secret": (_event({"type": "app_mention"}), JSON, {}, "wrong"),
    "timestamp abc": (b'{"x": "' + MARK.encode() + b'"}', JSON, {"ts": "abc"}, "good"),
    "timestamp 1e99": (b'{"x": "' + MARK.encode() + b'"}', JSON, {"ts": "1e99"}, "good"),
    "timestamp -1": (b'{"x": "' + MARK.encode() + b'"}', JSON, {"ts": "-1"}, "good"),
    "timestamp 10**40": (b'{"x": "' + MARK.encode() + b'"}', JSON, {"ts": "1" + "0" * 40}, "good"),
    "stale timestamp": (b'{"x": "' + MARK.encode() + b'"}', JSON, {"age": "400"}, "good"),
    "signature not ASCII": (_event({"type": "app_mention"}), JSON, {"sig": "v0=\u00e9"}, "none"),
}

SIGNED_UNPARSEABLE: dict[str, tuple[bytes, str]] = {
    "malformed JSON": (b'{"type": "event_callback", ' + MARK.encode(), JSON),
    "not UTF-8": (b'{"type": "' + MARK.encode() + b'\xff"}', JSON),
    "JSON array": (json.dumps([MARK, {"type": "event_callback"}]).encode(), JSON),
    "JSON null": (b"null", JSON),
    "deeply nested JSON": (b"[" * 100_000 + b"]" * 100_000, JSON),
    "event as a list": (_event([{"type": "app_mention", "text": MARK}]), JSON),
    "event without a type": (_event({"text": MARK}), JSON),
    "team_id an object": (_event({"type": "app_mention"}, team_id={"id": MARK}), JSON),
    "authorizations a string": (_event({"type": "app_mention"}, authorizations=MARK), JSON),
    "user a number": (_event({"type": "app_mention", "user": 5, "text": MARK}), JSON),
    "form without payload": (f"command=%2Fdocbot&text={MARK}".encode(), FORM),
    "form payload not JSON": (f"payload=%7B{MARK}".encode(), FORM),
    "form payload an array": (_form([MARK]), FORM),
    "empty body": (b"", JSON),
    "block_actions without a team": (
        _form({"type": "block_actions", "actions": [], "user": {"id": "U0ASKER"}, "note": MARK}),
        FORM,
    ),
    "view_submission without a user": (
        _form({"type": "view_submission", "team": {"id": TEAM}, "view": {"id": MARK}}),
        FORM,
    ),
}

SIGNED_UNSERVED: dict[str, tuple[bytes, str]] = {
    "block_suggestion": (
        _form({"type": "block_suggestion", "team": {"id": TEAM}, "value": MARK}),
        FORM,
    ),
    "view_closed": (_form({"type": "view_closed", "view": {"id": MARK}}), FORM),
    "app_rate_limited": (
        json.dumps(
            {"type": "app_rate_limited", "team_id": TEAM, "minute_rate_limited": 1, "note": MARK}
        ).encode(),
        JSON,
    ),
}


async def _post(
    app: RunningApp, body: bytes, content_type: str, *, headers: dict[str, str] | None = None,
    sign: str = "good",
) -> tuple[int, str]:  # fmt: skip
    extra = headers or {}
    stamp = extra.get("ts") or str(int(time.time()) - int(extra.get("age", "0")))
    sent = {"Content-Type": content_type, "X-Slack-Request-Timestamp": stamp}
    if sign != "none" or "sig" in extra:
        secret = SIGNING_SECRET if sign == "good" else "not-the-secret"
        sent["X-Slack-Signature"] = extra.get("sig") or _sign(body, stamp, secret)
    async with app.session.post(app.url, data=body, headers=sent) as response:
        return response.status, await response.text()


def _sign(body: bytes, stamp: str, secret: str) -> str:
    """Slack's v0 signature over the raw bytes (harness.signature takes text)."""
    base = b"v0:" + stamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def _logged(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What docbot, Bolt and aiohttp logged (asyncio's selector notice aside)."""
    return [r for r in caplog.records if r.name != "asyncio" and r.levelno >= logging.INFO]


def _exchange_all(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture,
    cases: dict[str, Case],
) -> tuple[dict[str, tuple[int, str, list[logging.LogRecord]]], FakeSlack]:  # fmt: skip
    """Each case against one running app, its log lines kept apart; then a valid question, whose
    answer shows that the app still serves and that the bad requests left nothing in Slack."""
    config, answerer = indexed
    seen: dict[str, tuple[int, str, list[logging.LogRecord]]] = {}
    slacks: list[FakeSlack] = []

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        for name, (body, content_type, headers, sign) in cases.items():
            caplog.clear()
            status, text = await _post(app, body, content_type, headers=headers, sign=sign)
            seen[name] = (status, text, _logged(caplog))
        (status, _) = await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "9.1"))
        assert status == 200
        await app.settle()
        slacks.append(slack)

    with caplog.at_level(logging.DEBUG):
        run(config, answerer, store, scenario)
    return seen, slacks[0]


def _assert_one_quiet_line(name: str, records: list[logging.LogRecord], status: int) -> None:
    assert len(records) == 1, (name, [r.getMessage() for r in records])
    (record,) = records
    assert record.name == "docbot.serve" and record.exc_info is None, name
    assert MARK not in record.getMessage(), name
    assert (f"HTTP {status}" in record.getMessage()) == (status != 200), name


def _assert_only_the_good_question_reached_slack(slack: FakeSlack) -> None:
    posted = [c.params["thread_ts"] for c in slack.calls_to("chat.postMessage")]
    assert posted == ["9.1"]
    assert MARK not in slack.all_text()


def _assert_each_refused_quietly(
    seen: dict[str, tuple[int, str, list[logging.LogRecord]]], slack: FakeSlack, expected: int
) -> None:
    """Every case got `expected`, echoing nothing back, with one quiet log line; and only the
    good question that followed reached Slack."""
    for name, (status, text, records) in seen.items():
        assert status == expected, (name, text)
        assert MARK not in text, name
        _assert_one_quiet_line(name, records, expected)
    _assert_only_the_good_question_reached_slack(slack)


def test_unsigned_garbage_gets_401_and_one_log_line(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    _assert_each_refused_quietly(*_exchange_all(indexed, store, caplog, UNSIGNED), 401)


def test_signed_request_that_is_not_a_payload_gets_400_and_one_log_line(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    cases: dict[str, Case] = {
        name: (body, kind, {}, "good") for name, (body, kind) in SIGNED_UNPARSEABLE.items()
    }
    _assert_each_refused_quietly(*_exchange_all(indexed, store, caplog, cases), 400)


def test_signed_payload_docbot_does_not_serve_is_acknowledged_with_200(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    cases: dict[str, Case] = {
        name: (body, kind, {}, "good") for name, (body, kind) in SIGNED_UNSERVED.items()
    }
    seen, slack = _exchange_all(indexed, store, caplog, cases)
    for name, (status, text, records) in seen.items():
        assert status == 200, (name, text)
        _assert_one_quiet_line(name, records, 200)
        assert name in records[0].getMessage()  # names what was ignored
    _assert_only_the_good_question_reached_slack(slack)


def test_signed_mention_still_answered_after_garbage_on_the_same_connection(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Rejections leave the keep-alive connection and the event ledger as they were."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        question = ask(slack, "how do I roll back a deploy?", GENERAL, "9.2")
        raw = json.dumps(question).encode()
        assert (await _post(app, raw, JSON, sign="wrong"))[0] == 401
        assert (await _post(app, raw, JSON, headers={"ts": "1e99"}))[0] == 401
        assert (await _post(app, raw[:-1], JSON))[0] == 400
        assert (await app.send(question))[0] == 200
        await app.settle()
        assert [c.params["thread_ts"] for c in slack.calls_to("chat.postMessage")] == ["9.2"]

    run(config, answerer, store, scenario)
