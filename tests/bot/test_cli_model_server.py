"""`docbot ask` against a model server that misbehaves: an `[error]` line, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.cli_harness import ROLLBACK_PAGE, indexed_handbook, model_server_env
from tests.grounding.fake_openai import FakeOpenAI, Reply, json_body, raw_body

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
