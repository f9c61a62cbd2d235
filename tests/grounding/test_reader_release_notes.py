"""The reader knows a release note from a reference page by how documentation names them.

A document named for a version (`releases/2.1.txt`, `whatsnew/3.12.rst`) or a section whose
heading starts with one (a change log's "## 1.4.0 (May 2025)") tells what changed in that
release, not how things are now. The reader gives its units a feature saying so; the ranker's
weight for it is fit by training/train_reader.py. Named by shape, never by a list of files.
"""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import UNIT_FEATURES, read
from retrieval.chunks import Chunk
from tests.grounding.test_reader import chunk, packet

REFERENCE = """\
## Sessions

Session cookies last for two weeks unless the age setting says otherwise.
"""
RELEASE = """\
## Sessions

Session cookies now last for two weeks instead of one, in this release.
"""


def release_flags(*chunks: Chunk) -> list[float]:
    reading = read(packet("how long do session cookies last", *chunks), shared_embedder())
    column = reading.units[:, UNIT_FEATURES.index("release_note")]
    return [float(v) for v in np.asarray(column)]


def test_units_of_a_document_named_for_a_version_are_release_notes() -> None:
    flags = release_flags(
        chunk(REFERENCE, "ref/sessions.txt", "Sessions"),
        chunk(RELEASE, "releases/2.1.txt", "Sessions"),
        chunk(RELEASE, "whatsnew/3.12.rst", "Sessions"),
    )
    assert flags == [0.0, 1.0, 1.0]


def test_a_section_headed_by_a_version_is_a_release_note() -> None:
    assert release_flags(chunk(RELEASE, "CHANGES.md", "1.4.0 (May 2025)")) == [1.0]
    assert release_flags(chunk(RELEASE, "CHANGES.md", "[v2.0.1] - 2025-05-01")) == [1.0]


def test_a_version_inside_a_name_is_not_a_release() -> None:
    # A protocol or interface version inside a title names what the page is about.
    for path, heading in (
        ("http2.md", "HTTP/1.1 and HTTP/2"),
        ("library/sqlite3.rst", "DB-API 2.0 interface"),
        ("guide/python3.md", "Sessions"),
    ):
        assert release_flags(chunk(REFERENCE, path, heading)) == [0.0], path
