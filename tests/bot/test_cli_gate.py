"""`docbot ask` with a model: a question nothing in the docs is near never reaches the model."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from grounding.gate import fitted_min_scope
from tests.bot.cli_harness import indexed_handbook, model_server_env
from tests.grounding.fake_openai import FakeOpenAI, answer

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
"""
DOCS = {
    "deploy.md": "# Deploys\n\nDeploys go out from the release branch every weekday.\n\n"
    "## Rollback\n\nTo roll back a deploy, run `deployctl rollback --to PREVIOUS`.\n",
    "oncall.md": "# On-call\n\nThe on-call rota lives in the ops calendar.\n",
    "reviews.md": "# Reviews\n\nEvery change needs one approving review before it merges.\n",
}


# Shares one word ("release") with the docs, so retrieval has hits for the gate to judge.
FAR = "Which release of the Kilimanjaro climbing permit costs the least in Tanzania?"
SERVICES = ("billing", "search", "ledger", "mailer", "gateway", "scheduler", "metrics", "auth")


def _service_page(i: int) -> str:
    """One of many short pages, so the scope is big enough to be gated (fitted_min_scope)."""
    name = f"{SERVICES[i % len(SERVICES)]}-{i}"
    return (
        f"# The {name} service\n\nThe {name} service runs on host app{i} in region "
        f"{('eu', 'us', 'ap')[i % 3]}. Its owners are on the {('red', 'blue')[i % 2]} team.\n"
    )


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    services = {f"service-{i}.md": _service_page(i) for i in range(fitted_min_scope())}
    return indexed_handbook(tmp_path, CONFIG, {**DOCS, **services})


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch) as fake:
        yield fake


def _ask_json(
    capsys: pytest.CaptureFixture[str], config: Path, question: str
) -> tuple[int, dict[str, object]]:
    capsys.readouterr()
    code = main(["ask", question, "--channel", "C0GEN", "--config", str(config), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_cli_gate_far_question_is_not_found_and_no_request_is_made(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    code, result = _ask_json(capsys, indexed, FAR)
    assert code == 0
    assert result["status"] == "not_found"
    assert result["retrieved"], "retrieval found something, and the gate judged it"
    gate = result["gate"]
    assert isinstance(gate, dict) and gate["near"] is False
    assert gate["nearness"] < gate["threshold"]
    assert result["usage"] == {"input_tokens": 0, "output_tokens": 0}
    timings = result["timings_ms"]
    assert isinstance(timings, dict) and timings["generate"] == 0.0
    assert model_server.requests == []


def test_cli_gate_near_question_reaches_the_model(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    model_server.script(
        "responses", answer([("To roll back a deploy, run `deployctl rollback`.", ["E1"])])
    )
    code, result = _ask_json(capsys, indexed, "How do I roll back a deploy?")
    assert code == 0
    assert result["status"] == "answered"
    gate = result["gate"]
    assert isinstance(gate, dict) and gate["near"] is True
    assert len(model_server.requests) == 1


def test_cli_gate_off_sends_every_question_to_the_model(
    indexed: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    indexed.write_text(CONFIG + "answer:\n  gate: false\n", encoding="utf-8")
    model_server.script(
        "responses", answer(status="insufficient_context", message="not in the docs")
    )
    code, result = _ask_json(capsys, indexed, FAR)
    assert code == 0
    assert result["gate"] is None
    assert len(model_server.requests) == 1


def test_cli_gate_eval_counts_the_questions_turned_away(
    indexed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], model_server: FakeOpenAI
) -> None:
    model_server.always(
        "responses", answer([("To roll back a deploy, run `deployctl rollback`.", ["E1"])])
    )
    questions = tmp_path / "set.jsonl"
    rows = [
        {"question": "How do I roll back a deploy?", "strings": ["deployctl rollback"]},
        {"question": FAR, "answerable": False},
        {"id": "far", "question": FAR, "strings": ["permit"]},  # said answerable: a failure
    ]
    questions.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["eval", str(questions), "--config", str(indexed)]) == 0
    out = capsys.readouterr().out
    assert "gated (model not called)  uncovered 1.000 (1/1), answerable 0.500 (1/2)" in out
    assert "answered right            0.500 (1/2)" in out
    assert re.search(r"line 3 far: .* -> not_found \(gated: nearness 0\.\d+ < 0\.\d+\)", out)
    assert not re.search(r"^tokens +0 in", out, re.MULTILINE), "the model call's tokens count"
    assert len(model_server.requests) == 1
