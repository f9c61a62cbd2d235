"""Each question `docbot eval` lists as not right says why, in the text output and the report.

"answered deploy.md (expected deploy.md)" alone reads as right: the listing names the check that
failed (no expected file cited, no expected string held, said not found, answered an uncovered
question, an error) and the question once (its line, and its id when it has one).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.test_cli_eval import ROLLBACK, _eval, _set, config  # noqa: F401


def test_eval_failure_lines_say_which_check_failed(
    config: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wrong_string = {**ROLLBACK, "id": "str", "strings": ["helm rollback"]}
    wrong_file = {**ROLLBACK, "id": "file", "expected": ["runbook.md"]}
    covered = {"question": "How do I roll back a deploy?", "answerable": False}  # no id
    report = tmp_path / "report.html"
    code, out, _ = _eval(
        capsys, config, _set(tmp_path, wrong_string, wrong_file, covered), "--html", str(report)
    )
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("  line ")]
    assert lines[0].startswith("  line 1 str: ") and "no claim holds 'helm rollback'" in lines[0]
    assert lines[1].startswith("  line 2 file: ") and "no claim cites runbook.md" in lines[1]
    # No id given: the line number is said once, not "line 3 line 3".
    assert lines[2].startswith("  line 3: ") and "answered an uncovered question" in lines[2]
    page = report.read_text(encoding="utf-8")
    assert "no claim holds &#x27;helm rollback&#x27;" in page
    assert "no claim cites runbook.md" in page
    assert "line 3, line 3" not in page
