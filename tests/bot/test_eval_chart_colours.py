"""The report's chart colours a figure by which way is good: a share of answerable questions
docbot refused is a loss, drawn like the dropped claims, not in the green of answered right."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.bot.test_cli_eval import ROLLBACK, UNCOVERED, _eval, _set, config  # noqa: F401


def _fill(page: str, label: str) -> str:
    match = re.search(rf">{re.escape(label)}</text><rect [^>]*/><rect [^>]* fill=\"(#\w+)\"", page)
    assert match, label
    return match.group(1)


def test_eval_chart_draws_answerable_refused_as_a_loss(
    config: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    report = tmp_path / "report.html"
    code, _, _ = _eval(capsys, config, _set(tmp_path, ROLLBACK, UNCOVERED), "--html", str(report))
    assert code == 0
    page = report.read_text(encoding="utf-8")
    good = _fill(page, "answered right")
    assert _fill(page, "refused when uncovered") == good
    assert _fill(page, "answerable refused") != good
