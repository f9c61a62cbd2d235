"""What may reach Bolt: a request Slack signed, decodable, shaped like a payload docbot serves.

Checked before anything parses the body, so unauthenticated garbage costs one HMAC and one log
line, never a traceback. Pure: bytes, headers and a clock in, a verdict out.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import parse_qsl

from pydantic import BaseModel, ConfigDict, ValidationError

# Slack rejects a request more than five minutes off its own clock; so do we.
MAX_CLOCK_SKEW_SECONDS = 5 * 60
# A Unix time in seconds: digits only (no sign, exponent or fraction), at most 12 of them.
_UNIX_SECONDS = re.compile(r"[0-9]{1,12}")
TIMESTAMP_HEADER = "X-Slack-Request-Timestamp"
SIGNATURE_HEADER = "X-Slack-Signature"

# Payload types Bolt dispatches to docbot's listeners: events, and the interactivity docbot's
# own messages and modals offer (manifest.yml); every other well-formed Slack payload
# (app_rate_limited, ...) is acknowledged and dropped, as Slack retries what is not.
INTERACTIVE_TYPES = frozenset({"block_actions", "view_submission", "message_action"})
# A slash command is a form with no `type`: this stands for it here.
SLASH_COMMAND = "slash_command"
SERVED_TYPES = frozenset({"event_callback", "url_verification", SLASH_COMMAND}) | INTERACTIVE_TYPES
# Socket Mode envelope type -> the payload types it carries.
SOCKET_ENVELOPE_PAYLOADS = {
    "events_api": frozenset({"event_callback"}),
    "interactive": INTERACTIVE_TYPES,
    "slash_commands": frozenset({SLASH_COMMAND}),
}


@dataclass(frozen=True, slots=True)
class Verdict:
    """`status` None: hand the request to Bolt. Else answer `status` and log `reason` once."""

    status: int | None
    reason: str
    payload_type: str | None = None

    @property
    def dispatch(self) -> bool:
        return self.status is None


class _Slice(BaseModel):
    # strict: a number is not a string here (Bolt's helpers assume the documented types).
    model_config = ConfigDict(extra="allow", frozen=True, strict=True)


class _Authorization(_Slice):
    team_id: str | None = None
    enterprise_id: str | None = None
    user_id: str | None = None
    is_enterprise_install: bool | None = None


class _Event(_Slice):
    type: str
    user: str | dict[str, Any] | None = None
    channel: str | dict[str, Any] | None = None
    team: str | None = None
    user_team: str | None = None
    ts: str | None = None
    thread_ts: str | None = None
    subtype: str | None = None
    bot_id: str | None = None
    item: dict[str, Any] | None = None
    message: dict[str, Any] | None = None
    previous_message: dict[str, Any] | None = None


class _EventCallback(_Slice):
    type: Literal["event_callback"]
    team_id: str
    event_id: str
    event: _Event
    enterprise_id: str | None = None
    api_app_id: str | None = None
    authorizations: list[_Authorization] | None = None


class _UrlVerification(_Slice):
    type: Literal["url_verification"]
    challenge: str


class _Team(_Slice):
    id: str


class _User(_Slice):
    id: str


class _Interactive(_Slice):
    """A button pressed or a modal submitted: who, in which workspace (the rest is the
    listener's to read, bot/interactive.py)."""

    type: str
    team: _Team
    user: _User


class _Command(_Slice):
    command: str
    team_id: str
    channel_id: str
    user_id: str
    text: str = ""


_MODELS: dict[str, type[_Slice]] = {
    "event_callback": _EventCallback,
    "url_verification": _UrlVerification,
    "block_actions": _Interactive,
    "view_submission": _Interactive,
    "message_action": _Interactive,
    SLASH_COMMAND: _Command,
}


def check_signed(
    body: bytes, headers: Mapping[str, str], secret: str, now: Callable[[], float]
) -> Verdict | None:
    """None when Slack signed `body` in the last five minutes; else a 401 saying why."""
    timestamp = headers.get(TIMESTAMP_HEADER)
    signature = headers.get(SIGNATURE_HEADER)
    if timestamp is None or signature is None:
        return Verdict(401, f"no {TIMESTAMP_HEADER} or {SIGNATURE_HEADER} header")
    if not _UNIX_SECONDS.fullmatch(timestamp):
        return Verdict(401, f"{TIMESTAMP_HEADER} is not a Unix time in seconds")
    if abs(now() - int(timestamp)) > MAX_CLOCK_SKEW_SECONDS:
        return Verdict(
            401,
            f"{TIMESTAMP_HEADER} is more than 5 minutes from this server's clock (a replay, "
            "or the clock is wrong)",
        )
    expected = _signature(secret, timestamp, body)
    if not signature.isascii() or not hmac.compare_digest(signature, expected):
        return Verdict(401, "bad signature (is SLACK_SIGNING_SECRET the app's signing secret?)")
    return None


def check_body(body: bytes, content_type: str | None) -> tuple[Verdict, str]:
    """A signed body: (verdict, the body as text for Bolt).

    Parsed the way Bolt will parse it: JSON when so declared or when it starts with `{`, else a
    form whose `payload` field holds the JSON."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return Verdict(400, "the body is not UTF-8"), ""
    try:
        parsed = _parse(text, content_type)
    except ValueError as exc:
        return Verdict(400, str(exc)), text
    return check_payload(parsed), text


def check_payload(payload: object, envelope_type: str | None = None) -> Verdict:
    """Whether a parsed payload (HTTP body, or a Socket Mode envelope's `payload`) goes to Bolt."""
    if envelope_type is not None and envelope_type not in SOCKET_ENVELOPE_PAYLOADS:
        return Verdict(200, f"docbot does not handle {_quote(envelope_type)} envelopes")
    if not isinstance(payload, dict):
        return Verdict(400, f"the payload is a JSON {_json_kind(payload)}, not an object")
    kind = payload.get("type", SLASH_COMMAND if "command" in payload else None)
    if not isinstance(kind, str):
        return Verdict(400, "the payload has no `type`")
    expected = SOCKET_ENVELOPE_PAYLOADS.get(envelope_type or "", SERVED_TYPES)
    if kind not in expected or kind not in SERVED_TYPES:
        return Verdict(200, f"docbot does not handle {_quote(kind)} payloads", kind)
    try:
        _MODELS[kind].model_validate(payload)
    except ValidationError as exc:
        fields = sorted({".".join(str(p) for p in error["loc"]) for error in exc.errors()})
        return Verdict(400, f"malformed {kind} payload (check {', '.join(fields[:5])})", kind)
    return Verdict(None, "ok", kind)


def _parse(text: str, content_type: str | None) -> object:
    if not text:
        raise ValueError("the body is empty")
    if content_type == "application/json" or text.startswith("{"):
        return _json(text, "the body")
    fields = dict(parse_qsl(text, keep_blank_values=True))
    if "command" in fields and "payload" not in fields:
        return fields  # a slash command
    if "payload" not in fields:
        raise ValueError("the body is neither JSON nor a form with a `payload` or `command` field")
    return _json(fields["payload"], "the form's `payload` field")


def _json(text: str, what: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} is not valid JSON ({exc.msg} at character {exc.pos})") from exc
    except RecursionError as exc:
        raise ValueError(f"{what} is JSON nested too deeply to be a Slack payload") from exc


def _json_kind(value: object) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number"
    )


def shown(value: object, limit: int = 60) -> str:
    """A value from a request or the socket, bounded and printable, for a log line."""
    text = value if isinstance(value, str) else repr(value)
    return text[:limit].encode("unicode_escape").decode("ascii")


def _quote(name: str) -> str:
    """A type name from the request, quoted, for a log line."""
    return f"`{shown(name, 40)}`" + ("..." if len(name) > 40 else "")


def _signature(secret: str, timestamp: str, body: bytes) -> str:
    """Slack's v0 signature, over the raw bytes: slack_sdk's SignatureVerifier decodes the body
    as UTF-8 first and raises on anything else. (Bolt checks again with it, on the text.)"""
    base = b"v0:" + timestamp.encode("ascii") + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
