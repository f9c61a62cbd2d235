"""`serve:` in docbot.yml: where HTTP mode listens, loopback by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Config, load_config
from retrieval.errors import ConfigError


def _load(tmp_path: Path, serve: str) -> Config:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(
        f"teams: [T0123ABC]\ncollections:\n  - name: handbook\n    path: handbook\n{serve}",
        encoding="utf-8",
    )
    return load_config(path)


def test_config_serve_defaults_to_loopback_port_3000(tmp_path: Path) -> None:
    serve = _load(tmp_path, "").serve
    assert (serve.host, serve.port) == ("127.0.0.1", 3000)


def test_config_serve_host_and_port_are_read(tmp_path: Path) -> None:
    serve = _load(tmp_path, "serve:\n  host: 0.0.0.0\n  port: 8080\n").serve
    assert (serve.host, serve.port) == ("0.0.0.0", 8080)


@pytest.mark.parametrize(
    ("serve", "says"),
    [
        ("serve:\n  host: http://0.0.0.0\n", "serve.host: must be an IP address or host name"),
        ("serve:\n  host: ''\n", "serve.host: must be an IP address or host name"),
        ("serve:\n  port: 0\n", "serve.port: must be at least 1"),
        ("serve:\n  port: 70000\n", "serve.port: must be at most 65535"),
        ("serve:\n  address: 0.0.0.0\n", "serve.address: unknown key"),
    ],
)
def test_config_serve_mistakes_name_the_key(tmp_path: Path, serve: str, says: str) -> None:
    with pytest.raises(ConfigError, match=r"docbot\.yml") as info:
        _load(tmp_path, serve)
    assert says in str(info.value)
