"""`feedback.wrong` / `feedback.helpful`: emoji names that a reaction can actually match."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import emoji_name_problem, load_config
from retrieval.errors import ConfigError


def _load(tmp_path: Path, feedback: str) -> str:
    """Load a config with `feedback` (YAML lines under `feedback:`); the error text, or ''."""
    (tmp_path / "handbook").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T0123ABC]\ncollections:\n  - name: handbook\n    path: handbook\n"
        f"feedback:\n{feedback}",
        encoding="utf-8",
    )
    try:
        load_config(path)
    except ConfigError as exc:
        return str(exc)
    return ""


@pytest.mark.parametrize(
    ("feedback", "key", "says"),
    [
        ("  wrong: []\n", "feedback.wrong", "at least one emoji name"),
        ("  helpful: []\n", "feedback.helpful", "at least one emoji name"),
        ('  wrong: [":x:"]\n', "feedback.wrong", "write `x`"),
        ('  helpful: ["thumbsup::skin-tone-2"]\n', "feedback.helpful", "without them"),
        ('  wrong: ["thumbs down"]\n', "feedback.wrong", "not a Slack emoji name"),
        ('  wrong: ["ThumbsDown"]\n', "feedback.wrong", "write `thumbsdown`"),
        ('  wrong: [""]\n', "feedback.wrong", "empty"),
        ("  wrong: [x, -1]\n", "feedback.wrong", 'quote it, e.g. "-1"'),
        ("  helpful: [+1]\n", "feedback.helpful", 'quote it, e.g. "+1"'),
        ("  wrong: [x, tada]\n  helpful: [tada]\n", "feedback", "tada is listed in both"),
    ],
)
def test_config_feedback_emoji_that_can_never_match_are_refused(
    tmp_path: Path, feedback: str, key: str, says: str
) -> None:
    message = _load(tmp_path, feedback)
    assert "docbot.yml" in message and f"{key}:" in message, message
    assert says in message, message


def test_config_feedback_defaults_and_real_names_load(tmp_path: Path) -> None:
    assert _load(tmp_path, "  wrong: [x, '-1', thumbsdown, no_entry]\n") == ""
    assert _load(tmp_path, "  helpful: [white_check_mark, '+1', heavy-check, '100']\n") == ""


@pytest.mark.parametrize("name", ["x", "+1", "-1", "white_check_mark", "man-woman-boy", "了解"])
def test_emoji_name_problem_accepts_slack_names(name: str) -> None:
    assert emoji_name_problem(name) is None
