"""A remote that never answers: the git step is stopped at its timeout, helpers and all, and
the sync fails saying so."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import DocbotError
from retrieval.sources import sync_sources
from tests.git_repos import needs_git

pytestmark = needs_git


class _HangingServer(ThreadingHTTPServer):
    client_left: threading.Event
    release: threading.Event


class _NeverAnswer(BaseHTTPRequestHandler):
    server: _HangingServer

    def do_GET(self) -> None:
        # Reads until the client closes the connection: only a stopped git-remote-http does.
        self.rfile.read(1)
        self.server.client_left.set()
        self.server.release.wait(30)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_HangingServer]:
    httpd = _HangingServer(("127.0.0.1", 0), _NeverAnswer)
    httpd.client_left, httpd.release = threading.Event(), threading.Event()
    httpd.daemon_threads = True
    # shutdown() is seen at the next poll (socketserver's default: every 0.5 s, a wait that
    # every test here would sit through at its end).
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def test_a_hanging_remote_is_stopped_at_the_timeout_with_gits_helpers(
    tmp_path: Path, server: _HangingServer
) -> None:
    port = server.server_address[1]
    path = tmp_path / "docbot.yml"
    path.write_text(
        f"teams: [T1]\ncollections:\n  - name: platform\n    git: http://127.0.0.1:{port}/d.git\n",
        encoding="utf-8",
    )
    with pytest.raises(DocbotError, match=r"`git clone` took over 0\.5 s and was stopped"):
        sync_sources(load_config(path), now=lambda: datetime(2026, 12, 1, tzinfo=UTC), timeout=0.5)
    # git-remote-http, git's child that holds the connection, was stopped with git.
    assert server.client_left.wait(30)
    assert not list((tmp_path / ".docbot" / "sources").glob("*/repo*"))  # no half clone left
