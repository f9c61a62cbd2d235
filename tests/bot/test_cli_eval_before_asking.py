"""`docbot eval` checks what it can before it asks anything: a run can cost minutes and tokens.

A report path that cannot be written is refused up front (with a model configured, no request
reaches the model server), and an `expected` file that no collection of the scope holds (a typo,
a moved file) is named before the run, since such a question can never be answered right.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.bot.cli_harness import model_server_env
from tests.bot.test_cli_eval import ROLLBACK, UNCOVERED, _eval, _set, config  # noqa: F401
from tests.grounding.fake_openai import FakeOpenAI, answer


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch) as fake:
        fake.always("responses", answer([("Run `deployctl rollback`.", ["E1"])]))
        yield fake


@pytest.mark.parametrize("where", ["missing-folder/report.html", "."])
def test_eval_unwritable_report_is_refused_before_any_question_is_asked(
    config: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model_server: FakeOpenAI,
    where: str,
) -> None:
    report = tmp_path / where
    questions = _set(tmp_path, ROLLBACK, UNCOVERED)
    code, out, err = _eval(capsys, config, questions, "--html", str(report))
    assert code == 2
    assert model_server.requests == []
    assert out == ""
    assert f"cannot write the report to {report}" in err and "nothing was asked" in err


def test_eval_names_expected_files_no_collection_in_scope_holds(
    config: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    typo = {**ROLLBACK, "id": "typo", "expected": ["deploi.md", "deploy.md"]}
    private = {**ROLLBACK, "id": "vault", "expected": ["payments/vault.md"]}
    code, _, err = _eval(capsys, config, _set(tmp_path, typo, private, ROLLBACK))
    assert code == 0
    assert "line 1 typo: expected file deploi.md is in no collection this scope reads" in err
    assert "line 2 vault: expected file payments/vault.md is in no collection" in err
    assert "deploy.md is in" not in err and "line 3" not in err
