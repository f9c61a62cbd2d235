"""The model server failing over HTTP: each failure a GenerationError of the right kind, retried
only where docs/configuration.md says (429 and 5xx), and never with a key in its text."""

from __future__ import annotations

import socket

import pytest

from tests.grounding.fake_clock import FakeClock
from tests.grounding.fake_openai import answer, http_error, slow
from tests.grounding.openai_harness import API, APIS, error, generation, serve

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])
KEY_BODY = (
    "Incorrect API key provided: sk-proj-abcd************************wxyz. You can find your "
    "API key at https://platform.openai.com/account/api-keys."
)


@pytest.mark.parametrize("api", APIS)
def test_generate_retries_a_rate_limit_then_succeeds(api: API) -> None:
    outcome, fake = serve(api, http_error(429), GOOD)
    assert generation(outcome).response.claims[0].citations == ["E1"]
    assert len(fake.requests) == 2


@pytest.mark.parametrize("api", APIS)
def test_generate_rate_limited_forever_stops_after_bounded_retries(api: API) -> None:
    outcome, fake = serve(api, fallback=http_error(429, "Rate limit reached"), max_retries=2)
    failure = error(outcome)
    assert failure.kind == "rate_limited"
    assert "Rate limit reached" in str(failure)
    assert "gave up after 3 attempt(s) (answer.max_retries: 2)" in str(failure)
    assert len(fake.requests) == 3  # the first try and two retries, no more


def test_generate_out_of_quota_says_to_check_billing_and_is_not_retried() -> None:
    quota = http_error(429, "You exceeded your current quota", code="insufficient_quota")
    outcome, fake = serve("responses", fallback=quota, max_retries=2)
    failure = error(outcome)
    assert failure.kind == "quota"
    assert "quota" in str(failure) and "billing" in str(failure)
    assert len(fake.requests) == 1  # a quota does not come back within an answer


@pytest.mark.parametrize("api", APIS)
def test_generate_slow_server_is_a_timeout_and_not_retried(api: API) -> None:
    # The server takes 2 s to answer, on the fake clock: it moves on as the request arrives.
    # On the real clock the 0.3 s could pass before the request was sent at all (the SDK's
    # first call, on a loaded machine), so the server saw none: no retry was not shown.
    clock = FakeClock()
    outcome, fake = serve(
        api, slow(2.0, GOOD), timeout_seconds=0.3, max_retries=2, clock=clock,
        on_request=lambda _: clock.advance(2.0),
    )  # fmt: skip
    failure = error(outcome)
    assert failure.kind == "timeout"
    assert "answer.timeout_seconds (0.3 s)" in str(failure)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("api", APIS)
def test_generate_server_errors_are_unavailable_after_retries(api: API) -> None:
    outcome, fake = serve(api, fallback=http_error(500, "The server had an error"), max_retries=1)
    failure = error(outcome)
    assert failure.kind == "unavailable"
    assert "HTTP 500" in str(failure)
    assert len(fake.requests) == 2


@pytest.mark.parametrize("api", APIS)
def test_generate_bad_key_is_auth_and_not_retried(api: API) -> None:
    outcome, fake = serve(api, fallback=http_error(401, "Incorrect API key provided"))
    failure = error(outcome)
    assert failure.kind == "auth"
    assert "OPENAI_API_KEY" in str(failure)
    assert len(fake.requests) == 1


@pytest.mark.parametrize("status", [401, 403, 404, 500])
def test_generate_error_detail_never_carries_a_key_fragment(status: int) -> None:
    outcome, _ = serve("responses", fallback=http_error(status, KEY_BODY), max_retries=0)
    detail = str(error(outcome))
    assert "sk-proj" not in detail and "abcd" not in detail and "wxyz" not in detail
    assert "Incorrect API key provided: [redacted key]" in detail


def test_generate_unknown_model_is_rejected_with_a_hint() -> None:
    outcome, fake = serve("chat", http_error(404, "The model `gpt-9` does not exist"))
    failure = error(outcome)
    assert failure.kind == "rejected"
    assert "gpt-9" in str(failure) and "answer.model" in str(failure)
    assert len(fake.requests) == 1


def test_generate_unreachable_server_is_unavailable() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    outcome, _ = serve("responses", base_url=f"http://127.0.0.1:{port}/v1")
    failure = error(outcome)
    assert failure.kind == "unavailable"
    assert "OPENAI_BASE_URL" in str(failure)
