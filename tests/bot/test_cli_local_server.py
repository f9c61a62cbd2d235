"""`docbot ask` with a local server that rejects strict schemas: answered through JSON mode."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.cli_harness import indexed_handbook, model_server_env
from tests.grounding.fake_local_servers import asks_json_object, without_json_schema
from tests.grounding.fake_openai import FakeOpenAI, answer

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
answer:
  generator: openai
  model: qwen2.5:7b-instruct
  api: chat
  reasoning_effort: null
"""
CLAIM = "To roll back a deploy, run `deployctl rollback --to PREVIOUS`."


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return indexed_handbook(tmp_path, CONFIG, {"deploy.md": f"# Rollback\n\n{CLAIM}\n"}, capsys)


@pytest.fixture
def llama_cpp(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch, api_key="unused") as fake:
        fake.respond = without_json_schema("llama.cpp")
        yield fake


def test_cli_ask_local_server_without_json_schema_answers(
    indexed: Path, capsys: pytest.CaptureFixture[str], llama_cpp: FakeOpenAI
) -> None:
    llama_cpp.script("chat", answer([(CLAIM, ["E1"])]))
    args = ["ask", "How do I roll back?", "--channel", "C0GEN", "--config", str(indexed)]
    code = main([*args, "--json"])
    printed = json.loads(capsys.readouterr().out)
    assert code == 0
    assert printed["status"] == "answered"
    assert [c["text"] for c in printed["claims"]] == [CLAIM]
    # The strict try llama.cpp refused, then JSON mode, which its script answered.
    assert [asks_json_object(r.body) for r in llama_cpp.requests] == [False, True]
