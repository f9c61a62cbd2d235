"""git never prompts: a remote that asks for a password fails the sync at once (saying why),
and credentials reach git from the environment or its credential helpers, never docbot.yml."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from retrieval.config import Config, load_config
from retrieval.errors import DocbotError
from retrieval.sources import sync_sources
from tests.git_repos import needs_git

pytestmark = needs_git


class _AuthServer(ThreadingHTTPServer):
    authorizations: list[str]


class _AskForPassword(BaseHTTPRequestHandler):
    server: _AuthServer

    def do_GET(self) -> None:
        self.server.authorizations.append(self.headers.get("Authorization", ""))
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="docs"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_AuthServer]:
    httpd = _AuthServer(("127.0.0.1", 0), _AskForPassword)
    httpd.authorizations = []
    # shutdown() is seen at the next poll (socketserver's default: every 0.5 s, a wait that
    # every test here would sit through at its end).
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join()


@pytest.fixture(autouse=True)
def no_user_git_config(monkeypatch: pytest.MonkeyPatch) -> None:
    # Only what a test sets: no credential helper of the machine's user or system.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")


def _config(tmp_path: Path, server: _AuthServer) -> Config:
    port = server.server_address[1]
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\ncollections:\n"
        f"  - name: platform\n    git: http://127.0.0.1:{port}/team/docs.git\n",
        encoding="utf-8",
    )
    return load_config(path)


def _now() -> datetime:
    return datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_a_remote_asking_for_a_password_fails_at_once_instead_of_prompting(
    tmp_path: Path, server: _AuthServer
) -> None:
    config = _config(tmp_path, server)
    with pytest.raises(DocbotError) as caught:
        sync_sources(config, now=_now, timeout=60)
    assert "terminal prompts disabled" in str(caught.value)
    assert "credential helpers, never from docbot.yml" in str(caught.value)


def test_credentials_reach_git_from_its_credential_helper_in_the_environment(
    tmp_path: Path, server: _AuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper = "!f() { echo username=bot; echo password=from-helper; }; f"
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "credential.helper")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", helper)
    config = _config(tmp_path, server)
    with pytest.raises(DocbotError):  # the server refuses every credential
        sync_sources(config, now=_now, timeout=60)
    assert "Basic Ym90OmZyb20taGVscGVy" in server.authorizations  # bot:from-helper


def test_the_users_own_ssh_command_is_used_for_an_ssh_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # core.sshCommand is how a deployment picks its key; docbot must not override it.
    marker = tmp_path / "ssh-called"
    script = tmp_path / "fake-ssh"
    script.write_text(f'#!/bin/sh\necho "$@" > {marker}\nexit 1\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.delenv("GIT_SSH_COMMAND", raising=False)
    monkeypatch.delenv("GIT_SSH", raising=False)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "core.sshCommand")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", str(script))
    path = tmp_path / "docbot.yml"
    path.write_text(
        "teams: [T1]\ncollections:\n  - name: platform\n    git: ssh://git@127.0.0.1/docs.git\n",
        encoding="utf-8",
    )
    with pytest.raises(DocbotError, match="cannot clone"):
        sync_sources(load_config(path), now=_now, timeout=60)
    assert "git@127.0.0.1" in marker.read_text(encoding="utf-8")
