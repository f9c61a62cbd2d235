"""What a Slack Web API call can raise, and what it says went wrong, in one place, so every
caller catches the same set and reads the same error.

slack_sdk raises SlackApiError for an error reply and SlackClientError for its own failures,
but the async client lets aiohttp's transport errors through as they are: a dropped
connection (ServerDisconnectedError) is an aiohttp.ClientError, not an OSError.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.retries import DEFAULT_RETRY_AFTER_SECONDS, header_seconds

SLACK_CALL_ERRORS: tuple[type[Exception], ...] = (
    SlackClientError,  # includes SlackApiError
    aiohttp.ClientError,
    OSError,
    TimeoutError,
)
BODY_CHARS = 80  # of a body that is not Slack's JSON, quoted in the description
# Slack's codes for a call that failed part way: "it's possible some aspect of the operation
# succeeded before the error was raised" (fatal_error, internal_error), or that it may yet do.
# Not `ratelimited`: Slack turns a rate-limited call away before acting on it (see maybe_done).
MAYBE_DONE_CODES = frozenset(
    {"fatal_error", "internal_error", "service_unavailable", "request_timeout"}
)
RATE_LIMITED = 429


def slack_error(exc: BaseException) -> str:
    """Slack's `error` code (`already_reacted`, `invalid_auth`) for a failed call, or a short
    description when there is none; never raises.

    The reply is not always Slack's JSON: a proxy's 500 or 502 is an HTML page, and then
    slack_sdk's SlackApiError carries a response whose body is a str, an empty dict, or no
    SlackResponse at all (aiohttp's own response, when the body claimed to be JSON)."""
    code = slack_error_code(exc)
    if code is not None:
        return code
    if not isinstance(exc, SlackApiError):
        return _transport_error(exc)
    response = exc.response
    data = getattr(response, "data", response)
    status = getattr(response, "status_code", None) or getattr(response, "status", None)
    where = f"HTTP {status}" if isinstance(status, int) else "a reply"
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    if isinstance(data, str) and data.strip():
        return f"{where} that is not Slack's JSON: {_clip(data.strip())!r}"
    return f"{where} without a Slack error code"


def _transport_error(exc: BaseException) -> str:
    """A call that got no reply from Slack, in words: where it could not connect, and why."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"cannot connect to {exc.host}:{exc.port}: {_os_reason(exc.os_error)}"
    if isinstance(exc, TimeoutError):  # an OSError too, with no errno
        return f"no answer in time ({type(exc).__name__})"
    if isinstance(exc, OSError):
        return _os_reason(exc)
    return repr(exc)  # aiohttp's own (ServerDisconnectedError(...)): its name says it


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, socket.gaierror):
        return "cannot resolve the host name"
    if isinstance(exc.errno, int) and exc.errno > 0:
        return os.strerror(exc.errno).lower()
    return str(exc) or type(exc).__name__


def slack_error_code(exc: BaseException) -> str | None:
    """Slack's own `error` code when the reply was Slack's JSON and named one, else None (a
    transport failure, or a body that is not Slack's: Slack never said what it refused)."""
    if not isinstance(exc, SlackApiError):
        return None
    data = getattr(exc.response, "data", exc.response)
    code = data.get("error") if isinstance(data, Mapping) else None
    return code if isinstance(code, str) and code else None


def maybe_done(exc: BaseException) -> bool:
    """Whether a failed call may have taken effect all the same, so a post may be in Slack.

    Definite (nothing was done): Slack's own refusal, answered in its JSON with a code such as
    channel_not_found, not_in_channel or invalid_auth; a rate limit (HTTP 429, `ratelimited`),
    which Slack's rate-limit documentation describes as the call turned away with a Retry-After
    "until you can retry" -- the same fact that lets unrepeated retry a 429 as it is, so one
    that outlasts those retries proves no more and no less; slack_sdk's errors raised before a
    request is sent; and a connection that was never made (refused, no such host, a failed TLS
    handshake). Anything else may have been done: no answer at all (a timeout, a dropped
    connection), a 5xx (after the client's retries), a body that is not Slack's JSON (a proxy's
    error page), or one of MAYBE_DONE_CODES."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return False  # no connection, so no request reached Slack
    if not isinstance(exc, SlackClientError):
        return True  # a transport failure: the request may have reached Slack
    if not isinstance(exc, SlackApiError):
        return False
    status = getattr(exc.response, "status_code", None) or getattr(exc.response, "status", None)
    if status == RATE_LIMITED:
        return False
    if isinstance(status, int) and status >= 500:
        return True
    code = slack_error_code(exc)
    return code is None or code in MAYBE_DONE_CODES


class ObservedWebClient(AsyncWebClient):
    """The Web API client that reports every call that failed, after its retries, by method
    (`on_error("chat.postMessage")`): each generated method goes through `api_call`."""

    def __init__(self, *, on_error: Callable[[str], None], **options: Any) -> None:
        super().__init__(**options)
        self.on_error = on_error

    async def api_call(
        self, api_method: str, *, http_verb: str = "POST", files: dict[str, Any] | None = None,
        data: dict[str, Any] | aiohttp.FormData | None = None,
        params: dict[str, Any] | None = None, json: dict[str, Any] | None = None,
        headers: dict[str, Any] | None = None, auth: dict[str, Any] | None = None,
    ) -> AsyncSlackResponse:  # fmt: skip
        try:
            return await super().api_call(
                api_method, http_verb=http_verb, files=files, data=data, params=params,
                json=json, headers=headers, auth=auth,
            )  # fmt: skip
        except SLACK_CALL_ERRORS:
            self.on_error(api_method)
            raise


def observed(client: AsyncWebClient, on_error: Callable[[str], None]) -> ObservedWebClient:
    """`client` (the one Bolt builds for each request, say) with its failures reported: the
    same token, workspace, session and retries."""
    if isinstance(client, ObservedWebClient) and client.on_error is on_error:
        return client
    return ObservedWebClient(on_error=on_error, **_options(client))


def rebuilt(client: AsyncWebClient, **changes: Any) -> AsyncWebClient:
    """`client` with some of its options changed (`timeout`, `retry_handlers`): the same token,
    workspace and session, and its failures still reported when it reports them."""
    options = {**_options(client), **changes}
    if isinstance(client, ObservedWebClient):
        return ObservedWebClient(on_error=client.on_error, **options)
    return AsyncWebClient(**options)


def unrepeated(client: AsyncWebClient) -> AsyncWebClient:
    """`client` for a call that must not be done twice, such as a one-off post: only a 429 is
    retried (Slack rate-limits a call before acting on it), never a 5xx or a dropped connection,
    after which the post may be in Slack already. When a call still fails in a way that may
    have taken effect (maybe_done), the caller looks for the post instead of repeating it; a
    429 that outlasts the retries is a definite failure, with nothing to look for."""
    handlers = [h for h in client.retry_handlers if isinstance(h, AsyncRateLimitErrorRetryHandler)]
    return rebuilt(client, retry_handlers=handlers)


def unwaited(client: AsyncWebClient) -> AsyncWebClient:
    """`client` for a read its caller would rather repeat later than wait for: a 429 is raised
    at once (`retry_after` says how long Slack asks to wait), not waited out; other failures
    are retried as `client` retries them."""
    handlers = [
        h for h in client.retry_handlers if not isinstance(h, AsyncRateLimitErrorRetryHandler)
    ]
    return rebuilt(client, retry_handlers=handlers)


def retry_after(exc: BaseException | None) -> float | None:
    """The seconds a rate-limited call (HTTP 429) asks to wait, by its Retry-After (as slack_sdk
    reads none that is missing or unreadable: retries.header_seconds); None for
    any other failure."""
    if not isinstance(exc, SlackApiError):
        return None
    response = exc.response
    if getattr(response, "status_code", None) != RATE_LIMITED:
        return None
    headers = getattr(response, "headers", None) or {}
    for name, value in headers.items():
        if str(name).lower() == "retry-after":
            return header_seconds(value[0] if isinstance(value, list) and value else value)
    return DEFAULT_RETRY_AFTER_SECONDS


def _options(client: AsyncWebClient) -> dict[str, Any]:
    return dict(
        token=client.token, base_url=client.base_url, timeout=client.timeout, ssl=client.ssl,
        proxy=client.proxy, session=client.session,
        trust_env_in_session=client.trust_env_in_session, headers=client.headers,
        team_id=client.default_params.get("team_id"), logger=client.logger,
        retry_handlers=client.retry_handlers,
    )  # fmt: skip


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= BODY_CHARS else flat[: BODY_CHARS - 1] + "…"
