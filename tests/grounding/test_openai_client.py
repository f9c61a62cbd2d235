"""The SDK client docbot makes: every client of a process verifies TLS with one context."""

from __future__ import annotations

import ssl
from pathlib import Path

import openai
import pytest

from grounding.generators.openai_client import make_openai_client, tls_context

URL = "http://127.0.0.1:9/v1"


def _verified_with(client: openai.AsyncOpenAI) -> ssl.SSLContext:
    """The context the client's HTTP transport opens TLS connections with (httpx2's pool)."""
    context: ssl.SSLContext = client._client._transport._pool._ssl_context  # type: ignore[attr-defined]
    return context


def test_model_clients_share_the_process_tls_context() -> None:
    # Each client loaded the CA store again (45-85 ms); a pipeline makes one per build.
    first, second = make_openai_client("sk-test", URL), make_openai_client("sk-test", URL)
    assert _verified_with(first) is _verified_with(second) is tls_context()
    assert tls_context().verify_mode == ssl.CERT_REQUIRED
    assert tls_context().check_hostname


def test_other_ca_settings_get_their_own_tls_context(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    before = tls_context()
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path))
    client = make_openai_client("sk-test", URL)
    assert _verified_with(client) is tls_context() is not before
    monkeypatch.undo()
    assert tls_context() is before


def test_a_given_http_client_is_used_as_it_is() -> None:
    own = ssl.create_default_context()
    client = make_openai_client(
        "sk-test", URL, http_client=openai.DefaultAsyncHttpxClient(verify=own)
    )
    assert _verified_with(client) is own
