from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config, source_url
from retrieval.errors import ConfigError

VALID = """\
state_dir: state
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
    url: "https://git.example.com/handbook/blob/main/{path}#L{start}-L{end}"
  - name: payments
    path: payments
    access: private
    channels: [C0PAYMENTS]
conversations:
  dm: none
answer:
  evidence_tokens: 2000
"""


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    (tmp_path / "payments").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(_write(tmp_path, text))
    return str(info.value)


def test_config_valid_file_resolves_paths_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    assert config.state_dir == (tmp_path / "state").resolve()
    assert config.collection("handbook").path == (tmp_path / "handbook").resolve()
    assert config.collection("payments").channels == ("C0PAYMENTS",)
    assert config.conversations.dm == "none"
    assert config.conversations.external == "none"
    assert config.answer.evidence_tokens == 2000
    assert config.answer.per_source_limit == 2


def test_config_unknown_key_names_file_and_key(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("  dm: none", "  dm: none\n  dms: public"))
    assert "docbot.yml" in message
    assert "conversations.dms" in message
    assert "unknown key" in message


def test_config_unknown_key_inside_a_collection_names_the_collection(tmp_path: Path) -> None:
    message = _error(
        tmp_path, VALID.replace("    path: payments", "    path: payments\n    acess: x")
    )
    assert "collections[1] (payments).acess" in message


def test_config_duplicate_collection_name(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("name: payments", "name: handbook"))
    assert "two collections are named 'handbook'" in message


def test_config_private_collection_without_channels(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("    channels: [C0PAYMENTS]\n", ""))
    assert "private but lists no channels" in message
    assert "collections[1] (payments)" in message


def test_config_channel_name_instead_of_id(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("C0PAYMENTS", '"payments"'))
    assert "'payments' is not a channel ID" in message
    assert "collections[1] (payments).channels" in message


def test_config_missing_folder(tmp_path: Path) -> None:
    path = _write(tmp_path, VALID.replace("path: payments", "path: nowhere"))
    with pytest.raises(
        ConfigError, match=r"collections\[1\]\.path: folder .*nowhere does not exist"
    ):
        load_config(path)


def test_config_empty_include(tmp_path: Path) -> None:
    message = _error(
        tmp_path, VALID.replace("    path: handbook\n", "    path: handbook\n    include: []\n")
    )
    assert "include is empty" in message


def test_config_missing_file_says_how_to_select_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="DOCBOT_CONFIG"):
        load_config(tmp_path / "absent.yml")


def test_config_invalid_yaml(tmp_path: Path) -> None:
    assert "not valid YAML" in _error(tmp_path, "teams: [T1\n")


def test_config_wrong_type_is_explained(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("evidence_tokens: 2000", "evidence_tokens: lots"))
    assert "answer.evidence_tokens" in message


def test_config_url_template_with_unknown_placeholder(tmp_path: Path) -> None:
    message = _error(tmp_path, VALID.replace("#L{start}-L{end}", "#L{first}"))
    assert "placeholders" in message


def test_source_url_fills_the_template(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    url = source_url(config.collection("handbook"), "ops/deploy guide.md", 40, 52)
    assert url == "https://git.example.com/handbook/blob/main/ops/deploy%20guide.md#L40-L52"
    assert source_url(config.collection("payments"), "a.md", 1, 2) is None
