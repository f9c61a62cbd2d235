"""`docbot ask` and `docbot eval` close their model client: no connection outlives the command."""

from __future__ import annotations

import gc
import json
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.bot.cli_harness import ROLLBACK_PAGE, indexed_handbook, model_server_env
from tests.grounding.fake_openai import FakeOpenAI, answer

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
answer:
  gate: false
"""
QUESTION = "How do I roll back a deploy?"
CLAIM = ("To roll back a deploy, run `deployctl rollback --to PREVIOUS`.", ["E1"])


@pytest.fixture
def indexed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    return indexed_handbook(tmp_path, CONFIG, ROLLBACK_PAGE, capsys)


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch) as fake:
        fake.always("responses", answer([CLAIM]))
        yield fake


def _unclosed_after(argv: list[str]) -> tuple[int, list[str]]:
    """The command's exit code, and the ResourceWarnings of what it left open: an HTTP
    connection its loop never closed warns when collected ("unclosed transport")."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        code = main(argv)
        gc.collect()
    return code, [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]


def test_cli_ask_closes_its_model_client(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    code, unclosed = _unclosed_after(
        ["ask", QUESTION, "--channel", "C0GEN", "--config", str(indexed)]
    )
    assert code == 0
    assert "deployctl rollback" in capsys.readouterr().out
    assert len(model_server.requests) == 1, "the model was asked, over a connection"
    assert unclosed == []


def test_cli_eval_closes_its_model_client(
    indexed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    questions = tmp_path / "set.jsonl"
    questions.write_text(
        json.dumps({"question": QUESTION, "strings": ["deployctl rollback"]}) + "\n",
        encoding="utf-8",
    )
    code, unclosed = _unclosed_after(["eval", str(questions), "--config", str(indexed)])
    assert code == 0
    assert "answered right            1.000 (1/1)" in capsys.readouterr().out
    assert len(model_server.requests) == 1
    assert unclosed == []
