""" "a hundred", "a thousand and one" are numbers as "one hundred" is: "a hundred and
twenty-eight" is 128, not a 100 and a 28. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.anchors import terms
from tests.grounding.support_checks import dropped, kept


def test_a_scale_after_a_is_one_of_it() -> None:
    assert terms("a hundred and twenty-eight calls") == ("128", "call")
    assert terms("a thousand and one nights") == ("1001", "night")
    assert terms("a hundredth") == ("a", "hundredth")


def test_a_count_spelled_with_a_is_checked_by_its_value() -> None:
    kept("The memo keeps a hundred and twenty-eight calls.", "The memo keeps 128 calls.")
    dropped("The memo keeps a hundred and twenty calls.", "The memo keeps 128 calls.")
