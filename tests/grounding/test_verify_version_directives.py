"""A quoted reST version directive (".. versionadded:: 3.9") is read as the sentence Sphinx
shows for it ("Added in version 3.9"), and a claim's version ("since 3.9", "added in 3.9") is
anchored by the evidence's "version" before the same number. Made-up sentences, no benchmark
item."""

from __future__ import annotations

from grounding.verification.directives import readable
from tests.grounding.support_checks import dropped, kept

ADDED = ".. versionadded:: 3.9\n\nThe `memo` helper caches results."
CHANGED = ".. versionchanged:: 3.11\n\nEmpty names are now refused by the loader."


def test_a_version_said_as_the_directive_means_is_kept() -> None:
    kept("The `memo` helper caches results; it was added in 3.9.", ADDED)
    kept("`memo` is new since 3.9.", ADDED)
    kept("Since 3.11 empty names are refused by the loader.", CHANGED)


def test_another_version_is_still_dropped() -> None:
    dropped("The `memo` helper was added in 3.8.", ADDED)
    dropped("Since 3.10 empty names are refused by the loader.", CHANGED)


def test_directives_read_as_sphinx_shows_them() -> None:
    assert readable(".. versionadded:: 3.9").startswith("Added in version 3.9")
    assert readable(".. deprecated-removed:: 3.12 3.14") == (
        "Deprecated since version 3.12, removed in version 3.14."
    )
    assert readable(".. deprecated:: 3.4") == "Deprecated since version 3.4."
