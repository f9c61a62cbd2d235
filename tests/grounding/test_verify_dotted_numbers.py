"""A number of several parts (a version, `4.2.1`) the quoted sentences hold anchors itself,
whatever words the claim puts around it; a plain integer still needs the same words near it.
Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

RELEASE = (
    "Changed in release 4.2.1. The kettle now whistles twice when the water boils; the spout "
    "pours 10 cups an hour."
)


def test_a_dotted_number_the_quote_holds_is_kept_in_other_words() -> None:
    for claim in (
        "The kettle has whistled twice since 4.2.1.",
        "From 4.2.1 on, the kettle whistles twice when the water boils.",
    ):
        kept(claim, RELEASE)


def test_a_plain_integer_still_needs_its_words() -> None:
    problem = dropped("Release 10 changed the kettle.", RELEASE)
    assert "'10' is not near the same words" in problem, problem


def test_a_dotted_number_the_quote_lacks_is_dropped() -> None:
    problem = dropped("The kettle has whistled twice since 4.2.2.", RELEASE)
    assert "4.2.2" in problem, problem
