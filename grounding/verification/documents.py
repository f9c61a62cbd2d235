"""The name a cited document goes by in its file name: what the reader sees beside each claim
(its source's path), so a claim may name the document so ("PEP 572" of pep-0572.rst, "the 5.1
release notes" of releases/5.1.txt)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

_SEPARATORS = re.compile(r"[-_\s]+")
_LEADING_ZEROS = re.compile(r"(?<![\d.])0+(?=\d)")


def document_name(path: str) -> str:
    """The file's stem with its separators as spaces and the zeros that pad its numbers gone:
    "peps/pep-0572.rst" is "pep 572", "releases/5.1.txt" is "5.1"."""
    stem = PurePosixPath(path).stem
    return _LEADING_ZEROS.sub("", _SEPARATORS.sub(" ", stem)).strip()
