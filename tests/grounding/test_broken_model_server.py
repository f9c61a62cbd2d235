"""A model server that answers 200 with something that is not an API reply: an error, never a crash.

Through the real `openai` client against the fake server on 127.0.0.1, on both APIs.
"""

from __future__ import annotations

import json

import pytest

from bot.render.no_answer import MODEL_FAILURE_TEXT, no_answer_text
from grounding.answer import AnswerStatus, NoAnswer
from tests.grounding.fake_openai import Reply, json_body, raw_body
from tests.grounding.openai_harness import API, APIS, ask, error, serve

HTML = raw_body("<html><body>502 Bad Gateway</body></html>", content_type="text/html")
NOT_JSON = [
    pytest.param(HTML, "text/html", id="html-page"),
    pytest.param(raw_body('{"output": [', content_type="application/json"), "", id="cut-json"),
    pytest.param(raw_body("", content_type="application/json"), "", id="empty-body"),
]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("reply", "content_type"), NOT_JSON)
def test_broken_server_body_that_is_not_json_is_invalid(
    api: API, reply: Reply, content_type: str
) -> None:
    outcome, fake = serve(api, reply)
    detail = str(error(outcome))
    assert error(outcome).kind == "invalid"
    assert "the body is not JSON" in detail and content_type in detail
    assert "OPENAI_BASE_URL" in detail
    assert len(fake.requests) == 1  # a broken server is not asked again and again


def _message(content: object) -> dict[str, object]:
    return {"type": "message", "role": "assistant", "content": content}


WRONG_RESPONSES = [
    pytest.param([1, 2], "at the top level", id="a-list"),
    pytest.param("completed", "at the top level", id="a-string"),
    pytest.param({"id": "resp_1"}, "at output: Field required", id="no-output"),
    pytest.param({"output": "answer"}, "output: Input should be a valid array", id="str-output"),
    pytest.param({"output": [_message(None)]}, "no `content` list", id="no-content"),
    pytest.param({"output": [_message("text")]}, "at output.0.content", id="str-content"),
    pytest.param({"output": [_message([{"type": "output_text"}])]}, "has no `text`", id="no-text"),
    pytest.param({"output": [{"content": []}]}, "at output.0.type: Field required", id="no-type"),
    pytest.param({"output": [], "usage": "lots"}, "at usage", id="str-usage"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "problem"), WRONG_RESPONSES)
def test_broken_server_json_that_is_no_response_is_invalid(body: object, problem: str) -> None:
    outcome, _ = serve("responses", json_body(body))
    assert error(outcome).kind == "invalid"
    assert "is not a Responses API response" in str(error(outcome))
    assert problem in str(error(outcome))


WRONG_COMPLETIONS = [
    pytest.param({"id": "chatcmpl-1"}, "at choices: Field required", id="no-choices"),
    pytest.param({"choices": "none"}, "choices: Input should be a valid array", id="str-choices"),
    pytest.param({"choices": [{"index": 0}]}, "at choices.0.message: Field required", id="no-msg"),
    pytest.param({"choices": [{"message": "hi"}]}, "at choices.0.message", id="str-message"),
    pytest.param({"choices": [{"message": {"content": 42}}]}, "content", id="int-content"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "problem"), WRONG_COMPLETIONS)
def test_broken_server_json_that_is_no_completion_is_invalid(body: object, problem: str) -> None:
    outcome, _ = serve("chat", json_body(body))
    assert error(outcome).kind == "invalid"
    assert "is not a chat completion" in str(error(outcome))
    assert problem in str(error(outcome))


@pytest.mark.parametrize(
    ("api", "body", "problem"),
    [
        ("chat", {"choices": []}, "returned no choices"),
        ("chat", {"choices": [{"message": {"content": None}}]}, "returned no output text"),
        ("responses", {"output": []}, "returned no output text"),
        ("responses", {"output": [_message([])]}, "returned no output text"),
    ],
)
def test_broken_server_well_formed_but_empty_reply_is_invalid(
    api: API, body: object, problem: str
) -> None:
    outcome, _ = serve(api, json_body(body))
    assert error(outcome).kind == "invalid"
    assert problem in str(error(outcome))


@pytest.mark.parametrize(
    ("api", "body"),
    [
        ("chat", {"choices": [{"message": {"content": None, "refusal": "No."}}]}),
        ("responses", {"output": [_message([{"type": "refusal", "refusal": "No."}])]}),
    ],
)
def test_broken_server_bare_refusal_is_a_refusal(api: API, body: object) -> None:
    outcome, _ = serve(api, json_body(body))
    assert error(outcome).kind == "refusal"


def test_broken_server_minimal_reply_without_optional_fields_is_read() -> None:
    # Local servers leave out most of the Response object: what docbot reads is enough.
    text = json.dumps({"status": "insufficient_context", "claims": [], "message": "Not covered."})
    body = {"output": [_message([{"type": "output_text", "text": text}])]}
    outcome, _ = serve("responses", json_body(body))
    assert not isinstance(outcome, Exception)
    assert outcome.response.message == "Not covered."
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (0, 0)


@pytest.mark.parametrize("api", APIS)
def test_broken_server_becomes_an_error_answer_with_the_fixed_message(api: API) -> None:
    answer, _ = ask(api, HTML)
    assert answer.status is AnswerStatus.ERROR
    assert answer.reason is NoAnswer.MODEL_INVALID
    assert no_answer_text(answer) == MODEL_FAILURE_TEXT[NoAnswer.MODEL_INVALID]
    assert answer.claims == ()
    assert answer.error_detail.startswith("invalid: ")
    assert "not JSON" in answer.error_detail and "<html>" not in answer.error_detail
