"""The `docbot` command line end to end, on a tiny corpus in a temporary folder."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from tests.grounding.fake_openai import FakeOpenAI, answer, fake_in_thread, http_error

CANARY = "The vault phrase for payments is saffron-lighthouse-42."
CONFIG = """\
teams: [T1, T2]
collections:
  - name: handbook
    path: handbook
    url: "https://git.example.com/handbook/{path}#L{start}-L{end}"
  - name: payments
    path: payments
    access: private
    channels: [C0PAY]
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "deploy.md").write_text(
        "# Deploys\n\nDeploys go out from the release branch every weekday.\n\n"
        "## Rollback\n\nTo roll back a deploy, run `deployctl rollback --to PREVIOUS`.\n"
        "The rollback takes about four minutes.\n",
        encoding="utf-8",
    )
    (handbook / "oncall.md").write_text(
        "# On-call\n\nThe on-call rota lives in the ops calendar.\n", encoding="utf-8"
    )
    (handbook / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    payments = tmp_path / "payments"
    payments.mkdir()
    (payments / "vault.md").write_text(
        f"# Vault\n\n{CANARY}\n\nRotate the vault phrase every ninety days.\n", encoding="utf-8"
    )
    path = tmp_path / "docbot.yml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


@pytest.fixture
def indexed(config: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["index", "--config", str(config)]) == 0
    capsys.readouterr()
    return config


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _ask(
    capsys: pytest.CaptureFixture[str], config: Path, question: str, *flags: str
) -> tuple[int, str, str]:
    return _run(capsys, "ask", question, "--channel", "C0GEN", "--config", str(config), *flags)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def test_cli_index_prints_counts_and_skipped_files(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(capsys, "index", "--config", str(config))
    assert code == 0
    assert "handbook" in out and "payments" in out
    assert "3 documents" in out
    assert "skipped: handbook/logo.md: binary" in out
    code, out, _ = _run(capsys, "index", "--config", str(config))
    assert code == 0
    lines = [line.split() for line in out.splitlines() if line.startswith("handbook")]
    assert lines == [["handbook", "2", lines[0][2], "0", "0", "0"]]  # nothing re-read


def test_cli_search_json_has_the_documented_fields(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _run(
        capsys,
        "search",
        "roll back a deploy",
        "--channel",
        "C0GEN",
        "--config",
        str(indexed),
        "--json",
    )
    assert code == 0
    hits = json.loads(out)
    assert hits[0]["path"] == "deploy.md"
    assert set(hits[0]) == {
        "chunk_id",
        "collection",
        "path",
        "heading",
        "start_line",
        "end_line",
        "score",
        "text",
    }
    lines = (indexed.parent / "handbook" / "deploy.md").read_text().splitlines()
    top = hits[0]
    assert "\n".join(lines[top["start_line"] - 1 : top["end_line"]]) == top["text"]


def test_cli_search_respects_the_channel_scope(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("search", "vault phrase payments", "--config", str(indexed), "--json")
    _, public, _ = _run(capsys, *args, "--channel", "C0GEN")
    _, private, _ = _run(capsys, *args, "--channel", "C0PAY")
    _, external, _ = _run(capsys, *args, "--channel", "C0PAY", "--external")
    assert "saffron" not in public and "saffron" not in external
    assert json.loads(private)[0]["collection"] == "payments"
    assert json.loads(external) == []


@pytest.mark.usefixtures("offline")
def test_cli_ask_answers_offline_with_numbered_sources(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _ask(capsys, indexed, "How do I roll back a deploy?")
    assert code == 0
    assert "deployctl rollback --to PREVIOUS" in out
    assert "[1]" in out and "Sources:" in out
    assert "https://git.example.com/handbook/deploy.md#L" in out
    assert "(extractive)" in out


@pytest.mark.usefixtures("offline")
def test_cli_ask_json_is_the_answer_contract(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _ask(capsys, indexed, "How do I roll back a deploy?", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["status"] == "answered"
    assert result["scope"] == {
        "team": "T1",
        "channel": "C0GEN",
        "kind": "channel",
        "collections": ["handbook"],
    }
    assert result["sources"][0]["n"] == 1 and result["sources"][0]["path"] == "deploy.md"
    assert all(c["citations"] for c in result["claims"])
    assert {"retrieve", "pack", "generate", "verify"} <= set(result["timings_ms"])


@pytest.mark.usefixtures("offline")
def test_cli_ask_not_covered_is_not_found(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _ask(capsys, indexed, "What is the capital of Australia?")
    assert code == 0
    assert out.startswith("[not_found]")
    assert "handbook" in out


@pytest.mark.usefixtures("offline")
def test_cli_ask_blocks_is_a_slack_message(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _ask(capsys, indexed, "How do I roll back a deploy?", "--blocks")
    assert code == 0
    message = json.loads(out)
    assert message["text"] and message["blocks"]
    assert message["unfurl_links"] is False and message["unfurl_media"] is False


@pytest.mark.parametrize("question", ["", "   \n", "x" * 4001])
def test_cli_bad_question_is_a_usage_error(
    indexed: Path, capsys: pytest.CaptureFixture[str], question: str
) -> None:
    code, out, err = _ask(capsys, indexed, question)
    assert code == 2
    assert out == ""
    assert err.startswith("docbot: the question is")
    assert "Traceback" not in err


def test_cli_unknown_team_names_the_configured_ones(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(
        capsys, "search", "deploy", "--channel", "C0GEN", "--team", "T9", "--config", str(indexed)
    )
    assert code == 2
    assert "'T9'" in err and "T1, T2" in err


def test_cli_search_before_index_says_to_run_index(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "search", "deploy", "--channel", "C0GEN", "--config", str(config))
    assert code == 1
    assert "docbot index" in err


def test_cli_bad_config_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "docbot.yml"
    path.write_text("teams: [T1]\ncollections: []\nsurprise: 1\n", encoding="utf-8")
    code, _, err = _run(capsys, "index", "--config", str(path))
    assert code == 1
    assert "surprise" in err and "unknown key" in err
    assert "Traceback" not in err


def test_cli_config_from_environment(
    indexed: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCBOT_CONFIG", str(indexed))
    code, out, _ = _run(capsys, "search", "on-call rota", "--channel", "C0GEN")
    assert code == 0
    assert "oncall.md" in out


def test_cli_feedback_before_any_answer(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "feedback", "--config", str(indexed))
    assert code == 0
    assert "No answers recorded yet" in out


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    with fake_in_thread() as fake:
        yield fake


def test_cli_ask_uses_the_model_when_a_key_is_set(
    indexed: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(
        "responses",
        answer([("To roll back a deploy, run `deployctl rollback --to PREVIOUS`.", ["E1"])]),
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    code, out, _ = _ask(capsys, indexed, "How do I roll back a deploy?", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["generator"] == "openai:gpt-5-mini"
    assert result["status"] == "answered"
    sent = json.dumps(fake_openai.bodies("responses"))
    assert "deployctl rollback" in sent  # the evidence went to the model
    assert "saffron" not in sent  # the private collection did not


def test_cli_ask_model_failure_is_an_error_with_its_detail(
    indexed: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.always("responses", http_error(401, "Incorrect API key provided: sk-te****key"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_openai.base_url)
    code, out, _ = _ask(capsys, indexed, "How do I roll back a deploy?")
    assert code == 1
    assert out.startswith("[error] ")
    assert "detail: " in out and "401" in out


def test_cli_channel_name_is_a_usage_error(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(
        capsys, "search", "deploy", "--channel", "general", "--config", str(indexed)
    )
    assert code == 2
    assert "'general' is not a channel ID" in err


def test_cli_output_into_a_closed_pipe_is_quiet(indexed: Path) -> None:
    # `docbot ask … --json | head`: the reader is gone before docbot writes (closed at once,
    # so the write fails however small the output); no traceback, no report.
    command = [sys.executable, "-m", "bot.cli", "search", "deploy rollback on-call", "--json"]
    command += ["--channel", "C0GEN", "--config", str(indexed), "--k", "50"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in err and "failed unexpectedly" not in err


def test_cli_search_text_of_a_passage_without_a_heading_has_no_empty_section_mark(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that starts with text (no heading above its first passage) printed a dangling
    `§ ` at the end of the hit's line."""
    (tmp_path / "handbook").mkdir()
    (tmp_path / "handbook" / "freeze.md").write_text(
        "Deploys are frozen on Fridays.\n", encoding="utf-8"
    )
    config = tmp_path / "docbot.yml"
    config.write_text("teams: [T1]\ncollections:\n  - name: handbook\n    path: handbook\n")
    assert main(["index", "--config", str(config)]) == 0
    capsys.readouterr()
    code, out, _ = _run(
        capsys, "search", "frozen Fridays", "--channel", "C1", "--config", str(config)
    )
    assert code == 0
    (line,) = out.splitlines()
    assert line.endswith("handbook  freeze.md:1-1") and "§" not in line


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_cli_serve_port_out_of_range_is_a_usage_error_before_anything_starts(
    port: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`docbot serve --port 70000` reached the bind after connecting to Slack and ended in an
    OverflowError traceback ("failed unexpectedly")."""
    with pytest.raises(SystemExit) as done:
        main(["serve", "--port", port])
    err = capsys.readouterr().err
    assert done.value.code == 2
    assert f"argument --port: {port!r} is not a port number: use 1 to 65535" in err
