"""A count the claim gives the list it writes in parentheses after the words it counts ("three
parts of the kettle (`lid`, `spout` and `handle`)") is the list's length, as after a colon;
another count of the same list is still dropped. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

PARTS = "# Clean the kettle's `lid`, `spout`, and `handle` before you fill it."


def test_a_count_of_the_list_in_parentheses_is_kept() -> None:
    for claim in (
        "You clean three parts of the kettle (`lid`, `spout` and `handle`) before you fill it.",
        "Clean the three parts (`lid`, `spout`, `handle`) before you fill the kettle.",
    ):
        kept(claim, PARTS)


def test_another_count_of_the_list_in_parentheses_is_dropped() -> None:
    for claim in (
        "You clean four parts of the kettle (`lid`, `spout` and `handle`) before you fill it.",
        "Clean the two parts (`lid`, `spout`, `handle`) before you fill the kettle.",
    ):
        dropped(claim, PARTS)
