"""Recognising a release's own note: a document or section that tells what changed in one version.

One rule, by how a file or a heading is named, never by a list of files: a file whose name
holds a version ("releases/2.1.txt", "whatsnew/3.12.rst", "v0.28-notes.md") or a heading that
starts with one (a change log's "## 1.4.0", "[2.0.1] - 2024-01-02"). The reader uses it as a
feature (grounding/generators/reading.py); answering caps how many such chunks one question's
hits may hold (grounding/retriever.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from retrieval.chunks import Chunk

_VERSION_NAMED = re.compile(r"(?:^|[\s_\-])v?\d+\.\d+")
_VERSION_HEADED = re.compile(r"\s*\[?v?\d+\.\d+")


def is_release_note(path: str, headings: Iterable[str]) -> bool:
    """True when the file at `path` is named for a version or one of `headings` starts with one."""
    stem = PurePosixPath(path).stem
    return bool(_VERSION_NAMED.search(stem)) or any(_VERSION_HEADED.match(h) for h in headings)


def chunk_is_release_note(chunk: Chunk) -> bool:
    return is_release_note(chunk.path, chunk.heading_path)
