"""A unit said without a number: "given in milliseconds" where the quote says "in seconds", and
"an hour after" where the quote gives no duration, are outside knowledge in the quote's own
words. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

LIMIT = "`idle_limit` is the time limit on idle workers in seconds, or `None` for none."
CLOSE = "Session tokens expire as soon as the user logs out."


def test_a_unit_the_quote_states_another_of_is_dropped() -> None:
    problem = dropped("`idle_limit` is given in milliseconds.", LIMIT)
    assert "'millisecond'" in problem and "'second'" in problem
    kept("`idle_limit` is given in seconds.", LIMIT)
    dropped(
        "The cache holds at most 2 entries per megabyte.", "The cache holds 2 entries per kilobyte."
    )


def test_a_duration_of_one_unit_the_quote_never_gives_is_dropped() -> None:
    for claim in (
        "Session tokens expire an hour after the user logs out.",
        "Session tokens expire within a day once the user logs out.",
    ):
        assert "duration" in dropped(claim, CLOSE), claim
    kept("Session tokens expire as soon as the user logs out.", CLOSE)
    kept("Session tokens expire an hour after login.", "Session tokens expire 1 hour after login.")
    # "a second" is as often a position ("a second request") as a duration.
    kept("A second login expires the tokens.", "A second login expires the tokens after 5 seconds.")
