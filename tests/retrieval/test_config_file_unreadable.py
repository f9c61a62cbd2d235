"""A config file docbot cannot read says what is wrong with it and what to do, not a codec error."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import ConfigError


def test_config_not_in_utf8_says_to_save_it_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "docbot.yml"
    path.write_bytes("teams: [T1]\n# caf\u00e9\n".encode("utf-16"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert "not UTF-8 text" in message and "save it as UTF-8" in message
    assert "codec" not in message


def test_config_path_that_is_a_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert "is a folder, not a config file" in message and "--config" in message
    assert "Errno" not in message
