"""The `openai` SDK's client as docbot makes it: no SDK retries, an explicit URL, and one TLS
context for every client of the process."""

from __future__ import annotations

import os
import ssl
from functools import lru_cache

import httpx2
import openai

from retrieval.errors import ConfigError

OPENAI_API_URL = "https://api.openai.com/v1"


def make_openai_client(
    api_key: str, base_url: str | None, *, http_client: openai.DefaultAsyncHttpxClient | None = None
) -> openai.AsyncOpenAI:
    """The SDK client, with the SDK's own retries off; `http_client` replaces the SDK's default.

    The SDK would retry timeouts and connection errors too, each attempt with a full timeout, so
    a hanging server held an answer for timeout x attempts. OpenAIGenerator retries instead:
    only 429 and 5xx, and only within the answer's deadline.
    """
    if not api_key.strip():
        raise ConfigError(
            "OPENAI_API_KEY is empty: set it to an OpenAI API key, or to any non-empty value when "
            "OPENAI_BASE_URL points at a local OpenAI-compatible server (Ollama, vLLM, llama.cpp)."
        )
    url = base_url or OPENAI_API_URL
    if not url.startswith(("https://", "http://")):
        raise ConfigError(
            f"OPENAI_BASE_URL {url!r} is not an http(s) URL: use e.g. http://127.0.0.1:11434/v1"
        )
    if http_client is None:
        http_client = openai.DefaultAsyncHttpxClient(verify=tls_context())
    # base_url is always passed so the SDK never falls back to reading the environment itself.
    # Every call passes its own timeout: what is left of the answer's deadline.
    return openai.AsyncOpenAI(api_key=api_key, base_url=url, max_retries=0, http_client=http_client)


def tls_context() -> ssl.SSLContext:
    """The TLS context every model client of this process shares: the one the SDK's default
    HTTP client builds (SSL_CERT_FILE / SSL_CERT_DIR when set, else the system's CA store),
    made once per value of those two instead of once per client. Loading the CA store takes
    45-85 ms of CPU, and each pipeline makes a client (`docbot ask`, a reload of `serve`)."""
    return _tls_context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@lru_cache(maxsize=4)
def _tls_context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    # The two values are only the cache's key: httpx2 reads the same variables itself.
    return httpx2.create_ssl_context()
