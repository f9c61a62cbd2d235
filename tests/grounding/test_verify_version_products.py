"""A version written after a product's name ("since Kettle 5.1", "in Teapot 0.28") is a version,
anchored by the evidence's "version" before the same number as "since 5.1" is. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

ADDED = ".. versionadded:: 5.1\n\nThe kettle can pour tea into two cups at once."


def test_a_version_after_a_products_name_is_anchored_by_version() -> None:
    for claim in (
        "Since Kettle 5.1 the kettle can pour tea into two cups at once.",
        "In Kettle 5.1 the kettle learned to pour tea into two cups at once.",
    ):
        kept(claim, ADDED)


def test_another_version_after_a_products_name_is_still_dropped() -> None:
    assert "5.2" in dropped("Since Kettle 5.2 the kettle can pour tea into two cups.", ADDED)
