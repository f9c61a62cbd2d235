"""Whose number it is: a quote often holds several numbers, each belonging to a named setting, a
noun phrase, a noun right before it or a position; a claim that keeps a number of the quote but
gives it to another owner changed the number (issue 9). Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

WORKERS = (
    "- `max_idle`, how many idle workers to keep, or `None` to keep them all. (Default 4)\n"
    "- `max_workers`, the most workers running at once. (Default 16)"
)
EXAMPLE = "For a small box:\n\npool = Pool(max_idle=2, max_workers=8)"
REPORT = "The nightly report runs 3 database queries and caches 2 pages."
HOOKS = "There are three retry hooks: `on_retry`, `on_giveup` and `on_success`."
PORTS = "The server listens on port 8000; the debug proxy uses 9000."
ARGS = "The third argument is the timeout, in seconds."


def test_a_settings_value_is_the_one_the_quote_gives_that_setting() -> None:
    kept("`max_workers` defaults to 16.", WORKERS)
    kept("`max_idle` defaults to 4; `None` keeps every idle worker.", WORKERS)
    assert "max_workers" in dropped("`max_workers` defaults to 4.", WORKERS)
    kept("The small-box example sets max_workers to 8.", EXAMPLE)
    assert "max_workers" in dropped("The small-box example sets max_workers to 2.", EXAMPLE)


def test_a_count_belongs_to_its_whole_noun_phrase() -> None:
    kept("The nightly report runs 3 queries.", REPORT)
    kept("The nightly report caches 2 pages.", REPORT)
    assert "2" in dropped("The nightly report runs 2 queries.", REPORT)


def test_both_counts_two() -> None:
    kept("`on_retry` and `on_giveup` are both retry hooks.", HOOKS)
    assert "2" in dropped("Both retry hooks are called on failure: `on_retry`, `on_giveup`.", HOOKS)


def test_a_number_right_after_its_noun_belongs_to_that_noun() -> None:
    kept("The server listens on port 8000.", PORTS)
    kept("The debug proxy uses 9000.", PORTS)
    assert "9000" in dropped("The server listens on port 9000.", PORTS)


def test_ordinal_words_are_positions() -> None:
    kept("The 3rd argument is the timeout in seconds.", ARGS)
    kept("The timeout is the third argument.", ARGS)
    assert "4th" in dropped("The fourth argument is the timeout in seconds.", ARGS)
    assert "4th" in dropped("The 4th argument is the timeout in seconds.", ARGS)


def test_a_number_before_a_comma_counts_nothing() -> None:
    # "max_idle=2, max_workers=8": the 2 is max_idle's, it counts no workers.
    kept("The small-box example runs 8 workers.", EXAMPLE)


def test_a_number_counting_nothing_near_the_noun_stands_for_it() -> None:
    evidence = "This runs 3 database queries; with a join it brings the query count to 2."
    kept("With a join it takes 2 queries.", evidence)
    kept("With a join it takes 2 queries instead of 3.", evidence)


VERSIONED = (
    ".. versionchanged:: 4.2\n\n"
    "Default value of *max_workers* is changed to ``min(16, cores + 2)``."
)


def test_a_version_in_a_settings_sentence_is_no_value_of_the_setting() -> None:
    kept(
        "Left out, `max_workers` has defaulted since Python 4.2 to `min(16, cores + 2)`.",
        VERSIONED,
    )
    dropped("If you leave out `max_workers`, it defaults to 4.2 workers.", VERSIONED)
