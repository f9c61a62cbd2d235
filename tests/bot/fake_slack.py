"""A fake Slack Web API on 127.0.0.1: records every call, answers like Slack, fails on cue.

Serves GET and POST `/api/<method>` with form-encoded, query-string and JSON parameters, the way
slack_sdk's AsyncWebClient sends them.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

from tests.bot.fake_slack_limits import RateLimit
from tests.bot.fake_slack_pages import listed
from tests.bot.fake_slack_streams import streamed

BOT_TOKEN = "xoxb-fake-docbot-token"
APP_TOKEN = "xapp-fake-docbot-token"
DROPPED = 0  # a Call's status when the fake dropped the connection instead of answering


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    body: str  # the raw request body (plus the query string), for leak scans
    token: str | None
    status: int = 0  # the HTTP status and JSON the fake answered with
    response: dict[str, Any] = field(default_factory=dict)
    at: float = field(default_factory=time.monotonic)  # when the request arrived


@dataclass
class _Failure:
    status: int
    retry_after: int | str | None  # a str is sent as it is: Retry-After that is not a number
    remaining: int
    body: str | None = None  # instead of Slack's JSON, e.g. a proxy's HTML error page
    content_type: str = "text/html"
    after: bool = False  # the call takes effect first, and only its answer is lost


@dataclass
class FakeSlack:
    team_id: str = "T0DOCBOT"
    bot_user_id: str = "U0DOCBOT"
    bot_id: str = "B0DOCBOT"
    token: str = BOT_TOKEN
    app_token: str = APP_TOKEN
    calls: list[Call] = field(default_factory=list)
    socket_acks: list[dict[str, Any]] = field(default_factory=list)
    _socket_queue: asyncio.Queue[dict[str, Any] | str] = field(default_factory=asyncio.Queue)
    channels: dict[str, dict[str, Any]] = field(default_factory=dict)
    # conversations.members answers, per channel; unknown channels get channel_not_found.
    members: dict[str, list[str]] = field(default_factory=dict)
    # Every message posted, per channel, oldest first: what conversations.replies reads.
    messages: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    page_size: int | None = None  # at most this many messages a page, whatever the limit asked
    _failures: dict[str, list[_Failure]] = field(default_factory=dict)
    limits: dict[str, RateLimit] = field(default_factory=dict)  # see rate_limit
    _refusals: dict[str, str] = field(default_factory=dict)
    _holds: dict[str, asyncio.Event] = field(default_factory=dict)
    _held_after: set[str] = field(default_factory=set)
    _next_ts: int = 1_700_000_000
    _next_view: int = 0
    _runner: web.AppRunner | None = None
    url: str = ""

    # --- scripting -------------------------------------------------------------------------

    def set_channel(self, channel_id: str, **properties: Any) -> None:
        """conversations.info answers for `channel_id`; unknown channels get channel_not_found."""
        self.channels[channel_id] = {"id": channel_id, **properties}

    def fail_next(
        self, method: str, status: int, count: int = 1, retry_after: int | str | None = None,
        *, body: str | None = None, content_type: str = "text/html",
    ) -> None:  # fmt: skip
        """The next `count` calls of `method` get HTTP `status` (429 with Retry-After, or 5xx);
        with `body`, that text as `content_type` instead of Slack's JSON (a proxy's error page)."""
        failure = _Failure(status, retry_after, count, body, content_type)
        self._failures.setdefault(method, []).append(failure)

    def rate_limit(self, method: str, limit: RateLimit) -> RateLimit:
        """Calls of `method` beyond `limit` get 429 with its Retry-After, as Slack's tiers do
        (after any failure scripted with fail_next)."""
        self.limits[method] = limit
        return limit

    def lose_next_answer(self, method: str, status: int | None = None, count: int = 1) -> None:
        """The next `count` calls of `method` take effect (a post is posted), then their answer
        is lost: HTTP `status` (a 500 after the work was done), or, with None, the connection is
        dropped before any answer (what a timeout looks like to the client, without the wait)."""
        failure = _Failure(status or DROPPED, None, count, after=True)
        self._failures.setdefault(method, []).append(failure)

    def refuse(self, method: str, error: str) -> None:
        """Every call of `method` is answered `{"ok": false, "error": error}` (HTTP 200), as a
        workspace answers a method it does not offer here, e.g. assistant.threads.setStatus
        with `not_allowed`, or chat.startStream with `unknown_method` on an older Slack."""
        self._refusals[method] = error

    def allow(self, method: str) -> None:
        """`method` is answered normally again after `refuse`."""
        self._refusals.pop(method, None)

    def hold(self, method: str, *, after: bool = False) -> asyncio.Event:
        """Calls of `method` are recorded at once but answered only after the event is set;
        with `after`, each takes effect first (a post is in the channel), and only its answer
        waits: a process killed then had posted, without learning so."""
        gate = self._holds.setdefault(method, asyncio.Event())
        if after:
            self._held_after.add(method)
        return gate

    def unhold(self, method: str) -> None:
        """New calls of `method` are answered at once again; those held so far wait for their
        event, as Slack's answer to a request the client gave up on may never come."""
        self._holds.pop(method, None)
        self._held_after.discard(method)

    def push_socket(self, envelope: dict[str, Any] | str) -> None:
        """Deliver a Socket Mode envelope (or raw text) over the (next) WebSocket connection."""
        self._socket_queue.put_nowait(envelope)

    # --- inspection ------------------------------------------------------------------------

    def calls_to(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    def posted(self) -> list[Call]:
        """chat.postMessage calls that succeeded (their `response["ts"]` is the reply's ts)."""
        return [c for c in self.calls_to("chat.postMessage") if c.response.get("ok")]

    def statuses(self) -> list[str]:
        """The status texts docbot set (assistant.threads.setStatus that succeeded), in order."""
        return [
            str(c.params.get("status", ""))
            for c in self.calls_to("assistant.threads.setStatus")
            if c.response.get("ok")
        ]

    def message(self, channel: str, ts: str) -> dict[str, Any] | None:
        """The message `ts` as Slack holds it now (a stream's blocks so far included)."""
        return next((m for m in self.messages.get(channel, []) if m["ts"] == ts), None)

    def all_text(self) -> str:
        """Everything docbot sent to Slack, for scanning that a secret never left."""
        return "\n".join(c.body for c in self.calls)

    async def wait_for(self, method: str, count: int = 1, timeout: float = 5.0) -> list[Call]:
        """The work happens after the ack, so poll with a short bounded wait."""
        deadline = asyncio.get_running_loop().time() + timeout
        while len(self.calls_to(method)) < count:
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(
                    f"waited {timeout}s for {count} {method} call(s), got "
                    f"{len(self.calls_to(method))}; all calls: {[c.method for c in self.calls]}"
                )
            await asyncio.sleep(0.02)
        return self.calls_to(method)

    async def wait_for_acks(self, envelope_ids: set[str], timeout: float = 5.0) -> None:
        """Until every envelope in `envelope_ids` has been acknowledged at least once."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not envelope_ids <= {a.get("envelope_id") for a in self.socket_acks}:
            if asyncio.get_running_loop().time() > deadline:
                acked = {a.get("envelope_id") for a in self.socket_acks}
                raise AssertionError(f"waited {timeout}s; not acknowledged: "
                                     f"{sorted(envelope_ids - acked)}")  # fmt: skip
            await asyncio.sleep(0.02)

    # --- serving ---------------------------------------------------------------------------

    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", "/api/{method}", self._handle)
        app.router.add_get("/link", self._socket)
        app.router.add_post("/commands/{hook:.+}", self._response_url)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/api/"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        raw = await request.text()
        params = _decode(request, raw)
        auth = request.headers.get("Authorization", "")
        token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else params.get("token")
        call = Call(method, params, f"{request.query_string}\n{raw}", token)
        self.calls.append(call)
        gate = self._holds.get(method)
        if gate is not None and method in self._held_after:
            call.status, call.response = 200, self._answer(method, params)
            await gate.wait()
            return web.json_response(call.response, status=call.status)
        if gate is not None:
            await gate.wait()
        failure = self._take_failure(method)
        if failure is None and method in self.limits:
            wait = self.limits[method].admit()
            failure = None if wait is None else _Failure(429, wait, 1)
        headers = {}
        if failure is not None and failure.after:
            self._answer(method, params)  # done, and then the answer is lost
            call.status, call.response = failure.status, {"ok": False, "error": "fatal_error"}
            if failure.status == DROPPED:
                call.response = {}
                assert request.transport is not None
                request.transport.close()
            return web.json_response(call.response, status=failure.status or 500)
        if failure is not None:
            call.status = failure.status
            call.response = {
                "ok": False,
                "error": "ratelimited" if failure.status == 429 else "fatal_error",
            }
            if failure.retry_after is not None:
                headers["Retry-After"] = str(failure.retry_after)
            if failure.body is not None:
                call.response = {}
                return web.Response(
                    status=failure.status, text=failure.body, headers=headers,
                    content_type=failure.content_type,
                )  # fmt: skip
        elif token != (self.app_token if method == "apps.connections.open" else self.token):
            call.status, call.response = 200, {"ok": False, "error": "invalid_auth"}
        elif method in self._refusals:
            call.status, call.response = 200, {"ok": False, "error": self._refusals[method]}
        else:
            call.status, call.response = 200, self._answer(method, params)
        return web.json_response(call.response, status=call.status, headers=headers)

    def response_url(self, hook: str) -> str:
        """A command's response_url on this fake (Slack's are on hooks.slack.com); what is
        posted there is recorded as a `response_url` call."""
        return f"{self.url.removesuffix('/api/')}/commands/{hook}"

    async def _response_url(self, request: web.Request) -> web.Response:
        raw = await request.text()
        call = Call("response_url", json.loads(raw), raw, None, 200, {"ok": True})
        self.calls.append(call)
        failure = self._take_failure("response_url")
        if failure is not None and failure.after:  # lose_next_answer("response_url")
            call.status, call.response = failure.status, {}
            if failure.status == DROPPED:
                assert request.transport is not None
                request.transport.close()
            return web.Response(status=failure.status or 500, text="")
        return web.Response(text="ok")  # what Slack's hooks answer

    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        """Socket Mode: hello, then queued envelopes; the client's acks are recorded."""
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_json({"type": "hello", "num_connections": 1, "connection_info": {}})
        sender = asyncio.create_task(self._send_envelopes(ws))
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    self.socket_acks.append(json.loads(message.data))
        finally:
            sender.cancel()
        return ws

    async def _send_envelopes(self, ws: web.WebSocketResponse) -> None:
        while True:
            envelope = await self._socket_queue.get()
            if isinstance(envelope, str):
                await ws.send_str(envelope)
            else:
                await ws.send_json(envelope)

    def _take_failure(self, method: str) -> _Failure | None:
        queue = self._failures.get(method)
        if not queue:
            return None
        failure = queue[0]
        failure.remaining -= 1
        if failure.remaining <= 0:
            queue.pop(0)
        return failure

    def _answer(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        match method:
            case "auth.test":
                return {
                    "ok": True,
                    "url": "https://docbot-test.slack.com/",
                    "team": "docbot test",
                    "user": "docbot",
                    "team_id": self.team_id,
                    "user_id": self.bot_user_id,
                    "bot_id": self.bot_id,
                    "is_enterprise_install": False,
                }
            case "chat.postMessage":
                ts = self._ts()
                message = {
                    "type": "message",
                    "user": self.bot_user_id,
                    "bot_id": self.bot_id,
                    "ts": ts,
                    "text": params.get("text", ""),
                }
                if params.get("thread_ts"):
                    message["thread_ts"] = params["thread_ts"]
                if params.get("metadata"):
                    message["metadata"] = params["metadata"]
                self.messages.setdefault(str(params.get("channel")), []).append(message)
                return {"ok": True, "channel": params.get("channel"), "ts": ts, "message": message}
            case "conversations.replies":
                return self._replies(params)
            case "conversations.history":
                return self._history(params)
            case "assistant.threads.setStatus":
                if not params.get("channel_id") or not params.get("thread_ts"):
                    return {"ok": False, "error": "invalid_arguments"}
                return {"ok": True}
            case "chat.startStream" | "chat.appendStream" | "chat.stopStream":
                return self._stream(method, params)
            case "chat.update":
                message = self.message(str(params.get("channel")), str(params.get("ts")))
                if message is None:
                    return {"ok": False, "error": "message_not_found"}
                message.update(text=params.get("text", ""), blocks=params.get("blocks", []))
                if params.get("metadata"):
                    message["metadata"] = params["metadata"]
                return {"ok": True, "channel": params.get("channel"), "ts": message["ts"]}
            case "assistant.threads.setSuggestedPrompts":
                prompts = params.get("prompts")
                if not params.get("channel_id") or not params.get("thread_ts") or not prompts:
                    return {"ok": False, "error": "invalid_arguments"}
                return {"ok": True}
            case "chat.getPermalink":
                where, at = str(params.get("channel")), str(params.get("message_ts"))
                if self.message(where, at) is None:
                    return {"ok": False, "error": "message_not_found"}
                link = f"https://docbot-test.slack.com/archives/{where}/p{at.replace('.', '')}"
                return {"ok": True, "channel": where, "permalink": link}
            case "chat.postEphemeral":
                return {"ok": True, "message_ts": self._ts()}
            case "views.open" | "views.publish":
                self._next_view += 1
                view = {"id": f"V{self._next_view:08d}", **(params.get("view") or {})}
                return {"ok": True, "view": view}
            case "reactions.add" | "reactions.remove":
                return {"ok": True}
            case "apps.connections.open":
                return {"ok": True, "url": f"{self.url.replace('http', 'ws', 1)[:-5]}/link"}
            case "conversations.members":
                found = self.members.get(str(params.get("channel")))
                if found is None:
                    return {"ok": False, "error": "channel_not_found"}
                return {"ok": True, "members": found, "response_metadata": {"next_cursor": ""}}
            case "conversations.info":
                channel = self.channels.get(str(params.get("channel")))
                if channel is None:
                    return {"ok": False, "error": "channel_not_found"}
                return {"ok": True, "channel": channel}
        return {"ok": False, "error": "unknown_method"}

    def _stream(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        channel = str(params.get("channel"))
        if method == "chat.startStream" and params.get("thread_ts"):
            started = {"user": self.bot_user_id, "bot_id": self.bot_id, "ts": self._ts()}
            self.messages.setdefault(channel, []).append(started)
            return streamed(method, params, started)
        return streamed(method, params, self.message(channel, str(params.get("ts"))))

    def _replies(self, params: dict[str, Any]) -> dict[str, Any]:
        """The thread's messages from `oldest` on, a page of them (fake_slack_pages)."""
        channel, thread = str(params.get("channel")), str(params.get("ts"))
        oldest = float(params.get("oldest") or 0)
        found = (
            m for m in self.messages.get(channel, [])
            if thread in (m["ts"], m.get("thread_ts")) and float(m["ts"]) >= oldest
        )  # fmt: skip
        return listed(found, params, self.page_size)

    def _history(self, params: dict[str, Any]) -> dict[str, Any]:
        """The channel's own messages (not thread replies) from `oldest` on, newest first, as
        Slack lists them, a page of them (fake_slack_pages)."""
        oldest = float(params.get("oldest") or 0)
        found = (
            m for m in reversed(self.messages.get(str(params.get("channel")), []))
            if m.get("thread_ts") in (None, m["ts"]) and float(m["ts"]) >= oldest
        )  # fmt: skip
        return listed(found, params, self.page_size)

    def _ts(self) -> str:
        self._next_ts += 1
        return f"{self._next_ts}.000100"


def _decode(request: web.Request, raw: str) -> dict[str, Any]:
    params: dict[str, Any] = dict(request.query)
    if request.content_type == "application/json" and raw:
        params.update(json.loads(raw))
    elif raw:
        params.update(parse_qsl(raw, keep_blank_values=True))
    for key in ("blocks", "metadata", "view", "chunks", "loading_messages"):
        if isinstance(params.get(key), str):
            # Form-encoded calls carry these as JSON strings.
            params[key] = json.loads(params[key])
    return params
