"""A number means what it is bound to (issue 9's held-out shortfalls): its unit, the noun it
counts, the default it states, the bound it sets. A claim that keeps the number but moves it to
other words, or that writes the same quantity another way, is read by what it says.

Every sentence here is made up for the mechanism; none is a benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

CACHE = (
    "Cached pages expire after 2 hours. The cache holds 500 entries and evicts the oldest first."
)
LOCK = "Default: ``30`` (in seconds). A lock older than 600 seconds is broken by the sweeper."
POOL = "A worker pool runs at most 8 threads and retries a failed job at least 3 times."
QUEUE = "The default queue size is 64; set it to 1024 for bulk imports."
BATCH = "Each upload is split into batches of 250 rows."
PLUGINS = "There are currently two plugin hooks: ``before_save`` and ``after_save``."
AGE = "A session expires after 3 days of inactivity."


def test_a_number_moved_to_another_unit_of_the_same_sentence_is_caught() -> None:
    kept("Cached pages expire after 2 hours.", CACHE)
    # 500 is in the evidence, but it counts entries, not hours.
    assert "500" in dropped("Cached pages expire after 500 hours.", CACHE)
    assert "600" in dropped("A lock is broken after 600 entries.", CACHE + " " + LOCK)


def test_a_default_is_the_value_the_evidence_gives_as_default() -> None:
    kept("The queue size defaults to 64.", QUEUE)
    kept("By default the queue holds 64 jobs.", QUEUE)
    kept("The lock timeout is 30 seconds by default.", LOCK)
    # 1024 and 600 are in the quote, but not as the default.
    assert "default" in dropped("The queue size defaults to 1024.", QUEUE)
    assert "default" in dropped("By default a lock is broken after 600 seconds.", LOCK)


def test_a_bound_turned_around_is_caught_and_no_more_than_is_no_negation() -> None:
    kept("The pool runs no more than 8 threads.", POOL)
    kept("A failed job is retried no fewer than 3 times.", POOL)
    kept("Up to 8 threads run in the pool.", POOL)
    assert "8" in dropped("The pool runs at least 8 threads.", POOL)
    assert "3" in dropped("A failed job is retried at most 3 times.", POOL)


def test_number_words_above_twenty_are_read_as_one_number() -> None:
    kept("Uploads are split into batches of two hundred and fifty rows.", BATCH)
    kept("Each batch holds two hundred fifty rows.", BATCH)
    kept("The queue size defaults to sixty four.", QUEUE)
    kept("For bulk imports, set the queue size to one thousand twenty-four.", QUEUE)
    assert "number" in dropped("Uploads are split into batches of two hundred rows.", BATCH)
    assert "number" in dropped("The queue size defaults to sixty.", QUEUE)


def test_one_as_a_count_must_agree_with_the_count_the_evidence_gives() -> None:
    kept("There are currently two plugin hooks.", PLUGINS)
    assert "1" in dropped("There is currently one plugin hook.", PLUGINS)
    assert "1" in dropped("There is only a single plugin hook.", PLUGINS)
    # "one of", "the one": a pronoun, not a count.
    kept("`before_save` is one of the plugin hooks.", PLUGINS)


def test_a_duration_in_other_units_is_the_same_duration() -> None:
    kept("A session expires after 72 hours of inactivity.", AGE)
    kept("A session expires after 259200 seconds of inactivity.", AGE)
    assert "number" in dropped("A session expires after 48 hours of inactivity.", AGE)
    assert "number" in dropped("A session expires after 3 hours of inactivity.", AGE)


def test_a_number_must_be_in_its_own_quote_not_in_the_evidence_of_another_claim() -> None:
    # The claim rests on the batch sentence only: 64 is another sentence's number.
    assert "64" in dropped("Each upload is split into batches of 64 rows.", BATCH)
    kept("Each upload is split into batches of 250 rows.", BATCH + " " + QUEUE)


def test_a_number_after_by_default_in_another_clause_is_no_default() -> None:
    evidence = "`retries` defaults to 0; set it to 5 to retry failed connections."
    kept("By default nothing is retried; set `retries` to 5 to retry connections.", evidence)


def test_number_words_the_evidence_spells_out_still_count_as_found_words() -> None:
    # Two of four content words found, "trigram" and "three": leaving the spelled-out number
    # out of the count would make it one of three.
    evidence = "A trigram is a run of three consecutive characters."
    kept("Trigrams are three letters long.", evidence)


def test_a_default_duration_may_be_given_in_other_units() -> None:
    evidence = "Default: ``86400`` (one day, in seconds). How long a sign-in token stays valid."
    kept("By default a token stays valid for 24 hours.", evidence)
    kept("A sign-in token's default lifetime is 24 hours.", evidence)
    assert "number 12" in dropped("By default a sign-in token stays valid for 12 hours.", evidence)


def test_a_number_its_quote_calls_a_maximum_is_no_minimum() -> None:
    evidence = "- `max_jobs`: the maximum number of queued jobs, 50 by default."
    kept("At most 50 jobs can be queued by default.", evidence)
    kept("Up to 50 jobs can be queued by default.", evidence)
    assert "50" in dropped("At least 50 jobs can be queued by default.", evidence)
