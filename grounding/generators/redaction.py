"""Cutting API keys out of error text before it is logged, stored or printed.

A model server's error body can quote the key it was sent, whole or masked ("Incorrect API key
provided: sk-proj-ab****wxyz"), and a local server's key can have any form at all. So the
configured key's own value goes, so does any word sharing a run of its characters, and so does
anything shaped like an OpenAI key or a bearer token, whatever key was configured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

REDACTED = "[redacted key]"
# A configured value shorter than this is no secret a server could leak (`ollama`'s keys are
# placeholders), and cutting every "abc" out of a message would garble it.
MIN_SECRET_CHARS = 4
# A word sharing this many consecutive characters with the key is a piece of it (a masked echo
# "test-RED****-42", or a quote clipped mid-key).
FRAGMENT_CHARS = 8
_KEY_LIKE = re.compile(r"\b(?:sk|rk|pk)-[\w*.\-]{3,}|\bBearer\s+\S+", re.IGNORECASE)
_WORD = re.compile(r"\S+")


@dataclass(frozen=True, slots=True)
class Redactor:
    """`redact(text)`: `text` without the given secrets or anything key-shaped."""

    secrets: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        secrets = [s for s in self.secrets if len(s.strip()) >= MIN_SECRET_CHARS]
        for secret in secrets:
            text = re.sub(re.escape(secret), REDACTED, text, flags=re.IGNORECASE)
        text = _KEY_LIKE.sub(REDACTED, text)
        pieces = {gram for secret in secrets for gram in _grams(secret.lower())}
        if not pieces:
            return text
        return _WORD.sub(lambda word: _unless_piece(word.group(), pieces), text)


def _grams(secret: str) -> set[str]:
    size = min(FRAGMENT_CHARS, len(secret))
    return {secret[i : i + size] for i in range(len(secret) - size + 1)}


def _unless_piece(word: str, pieces: set[str]) -> str:
    lowered = word.lower()
    sizes = {len(piece) for piece in pieces}
    for size in sizes:
        if any(lowered[i : i + size] in pieces for i in range(len(lowered) - size + 1)):
            return REDACTED
    return word


def clip(text: str, limit: int = 300) -> str:
    """A server's message cut to `limit` characters, so a verbose server cannot flood the log."""
    return text if len(text) <= limit else text[:limit] + "…"
