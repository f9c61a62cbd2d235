"""What a model server's HTTP error means: its GenerationError kind, its advice, whether to retry.

Pure: the OpenAI generator passes the status, the error `code` and the server's message.
"""

from __future__ import annotations

from grounding.deadline import Deadline
from grounding.generators.base import GenerationError


def status_error(
    status: int, code: str | None, detail: str, model: str, *, url: str = ""
) -> GenerationError:
    """One HTTP error as a GenerationError that says what to do; `url`: where the call went."""
    if status == 429:
        if code == "insufficient_quota":
            return GenerationError(
                "quota", f"the OpenAI account is out of quota ({detail}); check billing"
            )
        return GenerationError("rate_limited", f"{model} is rate limited (HTTP 429): {detail}")
    if status in (401, 403):
        return GenerationError(
            "auth",
            f"the model server rejected the credentials (HTTP {status}): {detail}; "
            "check OPENAI_API_KEY",
        )
    if status >= 500:
        return GenerationError("unavailable", f"{model}'s server failed (HTTP {status}): {detail}")
    # 400/404/422: the request itself was refused, usually a model name or an option the
    # server does not support; a 404 also an address that misses the API (no /v1).
    to = f" to {url}" if url else ""
    address = (
        "OPENAI_BASE_URL (an OpenAI-compatible server's usually ends in /v1), "
        if status == 404
        else ""
    )
    return GenerationError(
        "rejected",
        f"the model server refused the request{to} (HTTP {status}): {detail}; "
        f"check {address}answer.model, answer.api and answer.response_format in docbot.yml",
    )


def retryable(status: int, code: str | None) -> bool:
    """429 and 5xx may pass; an exhausted quota does not come back within an answer."""
    if status == 429:
        return code != "insufficient_quota"
    return status >= 500


def why_not_retried(attempts: int, max_retries: int, wait: float, deadline: Deadline) -> str:
    """Why a retryable error after `attempts` tries is the end of it, the next try being due in
    `wait` seconds ("" when it is retried): answer.max_retries spent, or the deadline nearer."""
    if attempts > max_retries:
        return f"gave up after {attempts} attempt(s) (answer.max_retries: {max_retries})"
    left = deadline.remaining()
    if wait >= left:
        return (
            f"not retried after {attempts} attempt(s): the wait of {wait:.1f} s would end "
            f"after {deadline.label} ({left:.1f} s left of {deadline.setting})"
        )
    return ""
