"""`docbot ask` against a model server that misbehaves: an `[error]` line, never a traceback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.cli_harness import ROLLBACK_PAGE, indexed_handbook, model_server_env
from tests.grounding.fake_openai import FakeOpenAI, Reply, http_error, json_body, raw_body

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
"""
QUESTION = "How do I roll back a deploy?"


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return indexed_handbook(tmp_path, CONFIG, ROLLBACK_PAGE, capsys)


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch) as fake:
        yield fake


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(raw_body("<html>Bad Gateway</html>", content_type="text/html"), id="html"),
        pytest.param(json_body({"id": "resp_1", "object": "response"}), id="no-output"),
        pytest.param(json_body({"output": "an answer"}), id="str-output"),
    ],
)
def test_cli_ask_broken_model_server_is_an_error_line_not_a_traceback(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI, reply: Reply
) -> None:
    model_server.always("responses", reply)
    code = main(["ask", QUESTION, "--channel", "C0GEN", "--config", str(indexed)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("[error] The language model could not produce a valid answer")
    assert "detail: invalid: gpt-5-mini's server sent a reply that is not" in out
    assert "Traceback" not in out + err and "unexpectedly" not in err
    assert len(model_server.requests) == 1


def test_cli_ask_rejected_key_says_an_admin_has_to_fix_it_and_the_detail_names_the_key_var(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    model_server.always("responses", http_error(401, "Incorrect API key provided", headers=()))
    code = main(["ask", QUESTION, "--channel", "C0GEN", "--config", str(indexed)])
    out, _ = capsys.readouterr()
    assert code == 1
    assert out.startswith("[error] The language model refused docbot's requests, which a docbot")
    assert "Try again in a minute" not in out
    assert "detail: auth: the model server rejected the credentials (HTTP 401)" in out
    assert "check OPENAI_API_KEY" in out and len(model_server.requests) == 1


def test_cli_ask_model_server_not_listening_names_the_url_and_why(
    indexed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """OPENAI_BASE_URL at a port nothing listens on: the detail names the address it tried and
    that the connection was refused, not the SDK's bare "Connection error."."""
    with socket.socket() as bound:  # bound, never listening: connecting is refused
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
        code = main(["ask", QUESTION, "--channel", "C0GEN", "--config", str(indexed)])
    out, err = capsys.readouterr()
    assert code == 1
    assert out.startswith("[error] The language model is unavailable right now.")
    assert (
        f"detail: unavailable: cannot reach the model server for gpt-5-mini at "
        f"http://127.0.0.1:{port}/v1/responses (connection refused); check OPENAI_BASE_URL"
    ) in out
    assert "Traceback" not in out + err


def test_cli_ask_base_url_without_v1_says_to_check_it(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """`OPENAI_BASE_URL=http://host:port` where the server's API is under /v1: a bare 404, which
    named only the model and options to check, though the address is what is wrong."""
    root = model_server.base_url.removesuffix("/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", root)
    code = main(["ask", QUESTION, "--channel", "C0GEN", "--config", str(indexed)])
    out, _ = capsys.readouterr()
    assert code == 1
    assert f"the model server refused the request to {root}/responses (HTTP 404)" in out
    assert "check OPENAI_BASE_URL (an OpenAI-compatible server's usually ends in /v1)" in out
    assert model_server.requests == []
