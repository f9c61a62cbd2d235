"""`docbot eval` end to end through the real CLI, on a tiny corpus in a temporary folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main

CONFIG = """\
teams: [T1]
collections:
  - name: handbook
    path: handbook
  - name: payments
    path: payments
    access: private
    channels: [C0PAY]
"""
ROLLBACK = {
    "id": "rb",
    "question": "How do I roll back a deploy?",
    "expected": ["deploy.md"],
    "strings": ["deployctl rollback"],
    "answerable": True,
}
UNCOVERED = {"id": "mt", "question": "What is the tallest mountain in Africa?", "answerable": False}
VAULT = {
    "id": "vault",
    "question": "How often do we rotate the vault phrase?",
    "expected": ["payments/vault.md"],
    "strings": ["ninety days"],
}


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "deploy.md").write_text(
        "# Deploys\n\nDeploys go out from the release branch every weekday.\n\n"
        "## Rollback\n\nTo roll back a deploy, run `deployctl rollback --to PREVIOUS`.\n"
        "The rollback takes about four minutes.\n",
        encoding="utf-8",
    )
    payments = tmp_path / "payments"
    payments.mkdir()
    (payments / "vault.md").write_text(
        "# Vault\n\nRotate the vault phrase every ninety days.\n", encoding="utf-8"
    )
    path = tmp_path / "docbot.yml"
    path.write_text(CONFIG, encoding="utf-8")
    assert main(["index", "--config", str(path)]) == 0
    return path


def _set(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "questions.jsonl"
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _eval(
    capsys: pytest.CaptureFixture[str], config: Path, questions: Path, *flags: str
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["eval", str(questions), "--config", str(config), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def _figure(out: str, label: str) -> str:
    match = re.search(rf"^{re.escape(label)}\s+(.+)$", out, re.MULTILINE)
    assert match, out
    return match.group(1)


def test_eval_scores_a_set_in_a_public_channels_scope(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _eval(capsys, config, _set(tmp_path, ROLLBACK, UNCOVERED, VAULT))
    assert code == 0, err
    # The private collection is not in a public channel's scope: the vault question fails.
    assert _figure(out, "scope") == "team T1, a public channel: handbook"
    assert _figure(out, "answered right") == "0.500 (1/2)"
    assert _figure(out, "refused when uncovered") == "1.000 (1/1)"
    assert _figure(out, "generator") == "extractive"
    assert _figure(out, "tokens") == "0 in, 0 out"
    assert "line 3 vault: 'How often do we rotate the vault phrase?' -> not_found" in out


def test_eval_channel_adds_its_private_collections(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = _eval(capsys, config, _set(tmp_path, ROLLBACK, VAULT), "--channel", "C0PAY")
    assert code == 0
    assert _figure(out, "scope") == "team T1, C0PAY: handbook, payments"
    assert _figure(out, "answered right") == "1.000 (2/2)"
    assert "not right" not in out


def test_eval_unknown_channel_is_a_usage_error(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _eval(capsys, config, _set(tmp_path, ROLLBACK), "--channel", "C0NOBODY")
    assert code == 2
    assert out == ""
    assert "--channel C0NOBODY is not named in any collection's `channels`" in err


def test_eval_bad_lines_are_each_named_and_nothing_runs(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = _set(
        tmp_path,
        ROLLBACK,
        '{"question": "unterminated',
        {"question": "no expectations", "answerable": True},
        {"question": "typo", "answerble": False},
    )
    code, out, err = _eval(capsys, config, questions)
    assert code == 2
    assert out == ""
    assert "3 bad line(s) in the question set; nothing was run" in err
    assert f"{questions}:2: not JSON" in err
    assert f"{questions}:3: an answerable question needs `expected`" in err
    assert f"{questions}:4: unknown key 'answerble'" in err


def test_eval_min_right_makes_it_a_gate(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = _set(tmp_path, ROLLBACK, VAULT)
    code, out, _ = _eval(capsys, config, questions, "--min-right", "0.9")
    assert code == 3
    assert "below the bar: answered right is below --min-right 0.9" in out
    assert _eval(capsys, config, questions, "--min-right", "0.5")[0] == 0


def test_eval_html_is_one_escaped_page(
    config: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = {
        "id": "<b>x</b>",
        "question": "How do I roll back? <script>alert('x')</script> <img src=x onerror=y>",
        "expected": ["nowhere.md"],
        "strings": ["</pre><script>"],
    }
    report = tmp_path / "report.html"
    code, out, _ = _eval(capsys, config, _set(tmp_path, hostile, UNCOVERED), "--html", str(report))
    assert code == 0
    assert f"report: {report}" in out
    page = report.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page and "<img" not in page and "<b>x" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "&lt;/pre&gt;&lt;script&gt;" in page
    # Self-contained: nothing to fetch (the SVG namespace is a name, not a request).
    tags = re.findall(r"<[a-zA-Z][^>]*>", page)
    assert not [tag for tag in tags if re.search(r"\s(src|href)=", tag)]
    assert "url(" not in page and "@import" not in page
    assert "<svg" in page and "answered right" in page
    # The failure is listed with the passages it was answered from.
    assert "Evidence: " in page and "deployctl rollback --to PREVIOUS" in page


def test_eval_html_is_written_when_the_reader_of_stdout_leaves_early(
    config: Path, tmp_path: Path
) -> None:
    report = tmp_path / "report.html"
    argv = [sys.executable, "-m", "bot.cli", "eval", str(_set(tmp_path, ROLLBACK, UNCOVERED))]
    argv += ["--config", str(config), "--html", str(report)]
    # `docbot eval ... | head -1`: stdout is a pipe whose reader is already gone.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(argv, stdout=write_end, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
