"""A fake OpenAI-compatible server on 127.0.0.1: scripted replies per endpoint, recorded requests.

Serves `POST /v1/responses` and `POST /v1/chat/completions` with bodies shaped like the real API's
(`Response`, `ChatCompletion`), so the real `openai.AsyncOpenAI` client can be pointed at it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cache
from types import TracebackType
from typing import Any, Literal

import openai
from aiohttp import web

from tests.grounding.fake_openai_stream import stream_reply

Endpoint = Literal["responses", "chat"]
CREATED_AT = 1_767_225_600  # a fixed clock keeps bodies reproducible


@dataclass(frozen=True)
class Reply:
    """One scripted behaviour; build it with the functions below."""

    kind: Literal["text", "refusal", "truncated", "error", "body", "hang", "trickle"]
    text: str = ""
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0  # seconds before replying (longer than the client timeout -> timeout)
    code: str | None = None  # the error's `code`, e.g. insufficient_quota
    commentary: str = ""  # Responses only: a `commentary` message before the final answer
    content_type: str = "application/json"  # `body` only
    pace: float = 0.0  # asked to stream: seconds over which the text's pieces are spread


def answer(
    claims: Sequence[tuple[str, list[str]] | tuple[str, list[str], list[str]]] | None = None,
    *,
    status: str = "answered",
    message: str = "",
) -> Reply:
    """A well-formed GroundedResponse as the model's output text. A claim is (text, citations)
    or (text, citations, quotes); without quotes it quotes itself."""
    payload = {
        "status": status,
        "claims": [
            {"text": c[0], "citations": c[1], "quotes": c[2] if len(c) == 3 else [c[0]]}
            for c in claims or []
        ],
        "message": message,
    }
    return Reply("text", json.dumps(payload))


def raw_text(text: str) -> Reply:
    """Arbitrary output text, e.g. malformed JSON from a server that ignores the schema."""
    return Reply("text", text)


def raw_body(body: str, *, content_type: str = "application/json", status: int = 200) -> Reply:
    """This body instead of an API reply: an HTML page, broken JSON, JSON of another shape."""
    return Reply("body", body, status, content_type=content_type)


def json_body(value: object) -> Reply:
    """Any JSON value as the whole body, e.g. a Response without `output`."""
    return raw_body(json.dumps(value))


def refusal(message: str = "I'm sorry, I can't help with that.") -> Reply:
    return Reply("refusal", message)


def truncated(partial: str = '{"status": "answered", "claims": [{"text": "The def') -> Reply:
    """Output cut off by the token limit: `incomplete` (Responses) / finish_reason `length`."""
    return Reply("truncated", partial)


def http_error(
    status: int,
    message: str = "",
    *,
    code: str | None = None,
    headers: tuple[tuple[str, str], ...] | None = None,
) -> Reply:
    """An API error; by default 429 and 5xx ask for a 5 ms wait, so retry tests stay short."""
    if headers is None:
        headers = (("retry-after-ms", "5"),) if status == 429 or status >= 500 else ()
    return Reply("error", message or f"fake error {status}", status, headers, code=code)


def hang() -> Reply:
    """Accept the request and never answer (until the server stops): a wedged model server."""
    return Reply("hang")


def trickle(every: float = 0.05) -> Reply:
    """A 200 whose body never ends: a space every `every` seconds, so no single read times out."""
    return Reply("trickle", delay=every)


def paced(seconds: float, then: Reply) -> Reply:
    """Streamed (when the request asks for it) over `seconds`, like a model writing its answer;
    sent whole after `seconds` when it does not."""
    return replace(then, pace=seconds)


def slow(seconds: float, then: Reply) -> Reply:
    return replace(then, delay=seconds)


def narrated(commentary: str, then: Reply) -> Reply:
    """A model that says what it is doing (phase `commentary`) before its final answer."""
    return replace(then, commentary=commentary)


@dataclass
class Recorded:
    endpoint: Endpoint
    body: dict[str, Any]
    headers: dict[str, str]
    usage: tuple[int, int] = (0, 0)  # (input, output) tokens the fake reported


@dataclass
class FakeOpenAI:
    """`async with FakeOpenAI() as fake:` serves on an ephemeral port until the block ends."""

    requests: list[Recorded] = field(default_factory=list)
    _queues: dict[str, deque[Reply]] = field(
        default_factory=lambda: {"responses": deque(), "chat": deque()}
    )
    _fallback: dict[str, Reply | None] = field(
        default_factory=lambda: {"responses": None, "chat": None}
    )
    # Called with each request as it arrives, before the reply: a test's signal, e.g. to move
    # a fake clock past a deadline while the request hangs.
    on_request: Callable[[Recorded], None] | None = None
    # Answers a request from what it asks, before the script does (None: the script answers):
    # how a server that treats some options its own way is emulated (fake_local_servers.py).
    respond: Callable[[Recorded], Reply | None] | None = None
    _runner: web.AppRunner | None = None
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, endpoint: Endpoint, *replies: Reply) -> None:
        """Replies served in order, one per request."""
        self._queues[endpoint].extend(replies)

    def always(self, endpoint: Endpoint, reply: Reply) -> None:
        """The reply once the script is used up (e.g. 429 forever)."""
        self._fallback[endpoint] = reply

    def bodies(self, endpoint: Endpoint) -> list[dict[str, Any]]:
        return [r.body for r in self.requests if r.endpoint == endpoint]

    async def __aenter__(self) -> FakeOpenAI:
        app = web.Application()
        app.router.add_post("/v1/responses", self._handle_responses)
        app.router.add_post("/v1/chat/completions", self._handle_chat)
        # A short shutdown: a handler still sleeping for a timeout test must not hold up exit.
        self._runner = web.AppRunner(app, shutdown_timeout=0.1)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stopping.set()  # lets hanging and trickling handlers end
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle_responses(self, request: web.Request) -> web.StreamResponse:
        return await self._handle("responses", request)

    async def _handle_chat(self, request: web.Request) -> web.StreamResponse:
        return await self._handle("chat", request)

    async def _handle(self, endpoint: Endpoint, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        recorded = Recorded(endpoint, body, dict(request.headers))
        self.requests.append(recorded)
        if self.on_request is not None:
            self.on_request(recorded)
        reply = (self.respond(recorded) if self.respond else None) or self._next(endpoint)
        if reply.kind == "hang":
            await self._stopping.wait()
            return web.Response(status=503)
        if reply.kind == "trickle":
            return await self._trickle(request, reply.delay)
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.pace and not body.get("stream"):
            await asyncio.sleep(reply.pace)
        if reply.kind == "error":
            return _error_response(reply)
        if reply.kind == "body":
            return web.Response(
                text=reply.text, status=reply.status, content_type=reply.content_type
            )
        recorded.usage = _usage(body, reply)
        build = _response_body if endpoint == "responses" else _chat_body
        whole = build(body, reply, len(self.requests), recorded.usage)
        if body.get("stream"):
            return await stream_reply(request, endpoint, whole, reply.pace)
        return web.json_response(whole)

    async def _trickle(self, request: web.Request, every: float) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        await response.prepare(request)
        try:
            while not self._stopping.is_set():
                await response.write(b" ")  # JSON allows leading whitespace: still a valid start
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), every)
        except ConnectionError:
            pass  # the client gave up, as it should
        return response

    def _next(self, endpoint: Endpoint) -> Reply:
        if self._queues[endpoint]:
            return self._queues[endpoint].popleft()
        fallback = self._fallback[endpoint]
        if fallback is None:
            # Loud on purpose: a test that sends more requests than it scripted is wrong.
            return http_error(400, f"fake: no scripted reply left for /{endpoint}")
        return fallback


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def loopback_http_client() -> openai.DefaultAsyncHttpxClient:
    """The SDK's HTTP client for talking to the fake, without loading the CA store each time.

    Loading it takes about 60 ms per client, most of a test's time; the fake speaks plain http
    on 127.0.0.1, so the context is never used, only built once.
    """
    return openai.DefaultAsyncHttpxClient(verify=_tls())


@contextmanager
def fake_in_thread(
    respond: Callable[[Recorded], Reply | None] | None = None,
) -> Iterator[FakeOpenAI]:
    """The fake on its own loop in a thread, for code that runs its own asyncio.run (the CLI)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    fake = FakeOpenAI(respond=respond)
    asyncio.run_coroutine_threadsafe(fake.__aenter__(), loop).result(10)
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(fake.__aexit__(None, None, None), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _usage(body: dict[str, Any], reply: Reply) -> tuple[int, int]:
    """Rough token counts (4 characters a token) that differ between requests."""
    sent = json.dumps([body.get("instructions"), body.get("input"), body.get("messages")])
    return max(1, len(sent) // 4), max(1, len(reply.text) // 4)


def _error_response(reply: Reply) -> web.Response:
    kind = {
        401: "invalid_request_error",
        429: "rate_limit_exceeded",
    }.get(reply.status, "server_error" if reply.status >= 500 else "invalid_request_error")
    code = reply.code or {401: "invalid_api_key", 429: "rate_limit_exceeded"}.get(reply.status)
    error = {"message": reply.text, "type": kind, "param": None, "code": code}
    return web.json_response({"error": error}, status=reply.status, headers=dict(reply.headers))


def _response_body(
    body: dict[str, Any], reply: Reply, n: int, usage: tuple[int, int]
) -> dict[str, Any]:
    incomplete = reply.kind == "truncated"
    if reply.kind == "refusal":
        content: dict[str, Any] = {"type": "refusal", "refusal": reply.text}
    else:
        content = {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
    message = {
        "id": f"msg_fake{n:04d}",
        "type": "message",
        "status": "incomplete" if incomplete else "completed",
        "role": "assistant",
        "content": [content],
        "phase": "final_answer" if reply.commentary else None,
    }
    narration = {
        "id": f"msg_fake{n:04d}c",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [
            {"type": "output_text", "text": reply.commentary, "annotations": [], "logprobs": []}
        ],
        "phase": "commentary",
    }
    return {
        "id": f"resp_fake{n:04d}",
        "object": "response",
        "created_at": CREATED_AT,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "model": body.get("model"),
        "output": [
            {"id": f"rs_fake{n:04d}", "type": "reasoning", "summary": []},
            *([narration] if reply.commentary else []),
            message,
        ],
        "parallel_tool_calls": True,
        "reasoning": {"effort": (body.get("reasoning") or {}).get("effort"), "summary": None},
        "store": body.get("store", True),
        "temperature": 1.0,
        "text": body.get("text"),
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": usage[0],
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": usage[1],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage[0] + usage[1],
        },
        "metadata": {},
    }


def _chat_body(
    body: dict[str, Any], reply: Reply, n: int, usage: tuple[int, int]
) -> dict[str, Any]:
    refused = reply.kind == "refusal"
    message: dict[str, Any] = {
        "role": "assistant",
        "content": None if refused else reply.text,
        "refusal": reply.text if refused else None,
        "annotations": [],
    }
    return {
        "id": f"chatcmpl-fake{n:04d}",
        "object": "chat.completion",
        "created": CREATED_AT,
        "model": body.get("model"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": "length" if reply.kind == "truncated" else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
        },
        "service_tier": "default",
        "system_fingerprint": "fp_fake",
    }
