"""The configured API key, whatever its form, never leaves the generator in an error's text."""

from __future__ import annotations

import logging

import pytest

from grounding.answer import AnswerStatus
from grounding.generators.redaction import REDACTED, Redactor
from tests.grounding.fake_openai import http_error, json_body
from tests.grounding.openai_harness import API, APIS, ask, error, serve

KEY = "test-REDTEAMKEY-42"  # no sk- prefix: a local server's key can look like anything
ECHO = f"Incorrect API key provided: {KEY}. You can find your API key in your account."


def test_redactor_cuts_the_configured_value_whatever_its_form() -> None:
    redact = Redactor((KEY,))
    assert (
        redact(ECHO)
        == f"Incorrect API key provided: {REDACTED}. You can find your API key in your account."
    )
    assert KEY.lower() not in redact(f"key={KEY.lower()}").lower()


@pytest.mark.parametrize(
    "echo",
    [
        "key test-RED****-42 is wrong",  # masked in the middle
        "got 'test-REDTEAMK…' (clipped)",  # cut mid-key by the server's own clipping
        '{"api_key":"xtest-REDTEAMKEY-42x"}',  # inside a JSON fragment
    ],
)
def test_redactor_cuts_a_word_holding_a_piece_of_the_key(echo: str) -> None:
    redacted = Redactor((KEY,))(echo)
    assert "REDTEAM" not in redacted and "test-RED" not in redacted
    assert REDACTED in redacted


def test_redactor_keeps_the_key_patterns_for_other_keys() -> None:
    redacted = Redactor((KEY,))("sent sk-proj-abcd****wxyz with Bearer abc.def")
    assert "abcd" not in redacted and "abc.def" not in redacted


def test_redactor_leaves_other_text_and_short_placeholder_keys_alone() -> None:
    text = "the model `llama3` does not exist; check answer.model"
    assert Redactor((KEY,))(text) == text
    assert Redactor(("x",))(text) == text  # a one-letter placeholder is no secret


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("status", [401, 403, 404, 500])
def test_generator_error_never_carries_the_configured_key(api: API, status: int) -> None:
    outcome, _ = serve(api, fallback=http_error(status, ECHO), key=KEY)
    detail = str(error(outcome))
    assert "REDTEAM" not in detail
    assert f"Incorrect API key provided: {REDACTED}" in detail


def test_generator_error_from_a_reply_body_is_redacted_too() -> None:
    # Not an HTTP error: a 200 whose `failed` status quotes the key, read by openai_replies.
    failed = {"status": "failed", "output": [], "error": {"message": ECHO}}
    outcome, _ = serve("responses", json_body(failed), key=KEY)
    assert error(outcome).kind == "unavailable"
    assert "REDTEAM" not in str(error(outcome)) and REDACTED in str(error(outcome))


@pytest.mark.parametrize("api", APIS)
def test_pipeline_error_detail_and_log_never_carry_the_key(
    api: API, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        answer, _ = ask(api, fallback=http_error(401, ECHO), key=KEY)
    assert answer.status is AnswerStatus.ERROR
    assert answer.error_detail.startswith("auth: ") and REDACTED in answer.error_detail
    assert "REDTEAM" not in answer.error_detail and "REDTEAM" not in answer.message
    logged = [record.getMessage() for record in caplog.records]
    assert any("generation failed kind=auth" in line for line in logged)
    assert not [line for line in logged if "REDTEAM" in line]
    assert not [r for r in caplog.records if r.exc_info or r.exc_text]
