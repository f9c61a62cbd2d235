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
