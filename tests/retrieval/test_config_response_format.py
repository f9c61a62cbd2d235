"""`answer.response_format` in docbot.yml: auto by default, the three modes, a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Config, load_config
from retrieval.errors import ConfigError


def _load(tmp_path: Path, answer: str) -> Config:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(
        f"teams: [T0123ABC]\ncollections:\n  - name: handbook\n    path: handbook\n{answer}",
        encoding="utf-8",
    )
    return load_config(path)


def test_config_response_format_defaults_to_auto(tmp_path: Path) -> None:
    assert _load(tmp_path, "").answer.response_format == "auto"


@pytest.mark.parametrize("mode", ["auto", "json_schema", "json_object"])
def test_config_response_format_modes_are_read(tmp_path: Path, mode: str) -> None:
    assert _load(tmp_path, f"answer:\n  response_format: {mode}\n").answer.response_format == mode


def test_config_response_format_unknown_mode_names_the_key_and_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, "answer:\n  response_format: json\n")
    message = str(raised.value)
    assert "answer.response_format" in message and "json_object" in message
