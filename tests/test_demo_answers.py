"""The bundled demo (docbot's own manual) answers what it covers and says so when it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demo_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    demo = yaml.safe_load((ROOT / "docbot.yml").read_text(encoding="utf-8"))
    demo["state_dir"] = str(folder / "state")  # never write into the checkout
    for collection in demo["collections"]:
        collection["path"] = str(ROOT / collection["path"])
    config = folder / "docbot.yml"
    config.write_text(yaml.safe_dump(demo), encoding="utf-8")
    assert main(["index", "--config", str(config)]) == 0
    return config


def ask(config: Path, question: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["ask", question, "--channel", "C0GENERAL", "--config", str(config), "--json"]) == 0
    answer: dict[str, object] = json.loads(capsys.readouterr().out)
    return answer


def claims(answer: dict[str, object]) -> str:
    return " ".join(str(c["text"]) for c in answer["claims"])  # type: ignore[attr-defined]


def test_demo_says_plainly_when_the_manual_does_not_cover_a_question(
    demo_config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    answer = ask(demo_config, "How do I deploy to Kubernetes?", capsys)
    assert answer["status"] == "not_found" and answer["claims"] == []


def test_demo_answers_natural_questions_about_the_manual(
    demo_config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for question, expected in (
        ("How do I run docbot in Socket Mode?", "SLACK_APP_TOKEN"),
        ("What does docbot do when the docs don't answer a question?", "says so plainly"),
    ):
        answer = ask(demo_config, question, capsys)
        assert answer["status"] == "answered", question
        assert expected in claims(answer), question
