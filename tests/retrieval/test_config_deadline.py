"""answer.deadline_seconds: how long one whole answer may take, and the per-call timeout in it."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import DEADLINE_SECONDS, load_config
from retrieval.errors import ConfigError

CONFIG = """\
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
"""


def _load(tmp_path: Path, answer: str) -> object:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(CONFIG + answer, encoding="utf-8")
    return load_config(path).answer.deadline_seconds


def _problem(tmp_path: Path, answer: str) -> str:
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, answer)
    return str(info.value)


def test_config_deadline_defaults_to_well_under_a_minute(tmp_path: Path) -> None:
    assert _load(tmp_path, "") == DEADLINE_SECONDS == 45.0


def test_config_deadline_is_read(tmp_path: Path) -> None:
    assert _load(tmp_path, "answer:\n  deadline_seconds: 20\n  timeout_seconds: 15\n") == 20.0


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("0", "answer.deadline_seconds: must be more than 0 (got 0)"),
        ("601", "answer.deadline_seconds: must be at most 600 (got 601)"),
        ("soon", "answer.deadline_seconds: must be a number (got 'soon')"),
    ],
)
def test_config_deadline_out_of_range_is_an_error(tmp_path: Path, value: str, problem: str) -> None:
    assert problem in _problem(tmp_path, f"answer:\n  deadline_seconds: {value}\n")


def test_config_call_timeout_longer_than_the_deadline_is_an_error(tmp_path: Path) -> None:
    problem = _problem(tmp_path, "answer:\n  timeout_seconds: 60\n")
    assert "timeout_seconds (60) is longer than deadline_seconds (45)" in problem
    assert "lower timeout_seconds or raise deadline_seconds" in problem
