"""An "after" or a "before" is checked against the quote's other word by what both govern: the
claim's phrase must say what the quote's phrase says, not share one word with it. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

CACHE = "The cache is cleared once a test ends, before the next test starts."
HOOK = "The audit hook runs after a job is fully queued, but before it is sent to a worker."


def test_one_word_shared_with_the_other_words_phrase_is_no_contradiction() -> None:
    kept("The cache is cleared after each test.", CACHE)
    kept("The cache is cleared before the next test starts.", CACHE)


def test_the_other_words_phrase_said_is_dropped() -> None:
    assert "'after'" in dropped("The cache is cleared after the next test starts.", CACHE)
    assert "'after'" in dropped("The audit hook runs after the job is sent to a worker.", HOOK)
    assert "'before'" in dropped("The audit hook runs before a job is fully queued.", HOOK)
    assert "'after'" in dropped("The hook runs after sending.", "The hook runs before sending.")


SEASON = "During the first twelve weeks the garden gets weekly watering."


def test_last_as_the_verb_before_a_length_of_time_turns_no_order_around() -> None:
    kept("Weekly watering of the garden lasts 12 weeks.", SEASON)


def test_the_last_weeks_for_the_first_is_still_dropped() -> None:
    dropped("During the last 12 weeks the garden gets weekly watering.", SEASON)
