"""`docbot ask` against a model server that misbehaves: an `[error]` line, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.grounding.fake_openai import FakeOpenAI, Reply, fake_in_thread, json_body, raw_body

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
"""
QUESTION = "How do I roll back a deploy?"


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "deploy.md").write_text(
        "# Rollback\n\nTo roll back a deploy, run `deployctl rollback --to PREVIOUS`.\n",
        encoding="utf-8",
    )
    config = tmp_path / "docbot.yml"
    config.write_text(CONFIG, encoding="utf-8")
    assert main(["index", "--config", str(config)]) == 0
    capsys.readouterr()
    return config


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with fake_in_thread() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
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
