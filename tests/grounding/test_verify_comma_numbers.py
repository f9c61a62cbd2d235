"""A comma joins digits only as a thousands separator: "blend(1.375,2)" (a quote's code as the
quote form writes it, its spaces taken out) holds the numbers 1.375 and 2, never "1.375,2";
"1,000" stays a thousand. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

BLEND = "For example, blend(1.375,2) gives 1.37 instead of the expected 1.38."


def test_numbers_in_code_written_without_spaces_are_read_one_by_one() -> None:
    kept("`blend(1.375, 2)` gives 1.37 instead of the expected 1.38.", BLEND)


def test_a_changed_argument_is_still_dropped() -> None:
    dropped("`blend(1.375, 3)` gives 1.37 instead of the expected 1.38.", BLEND)
    dropped("`blend(1.385, 2)` gives 1.37 instead of the expected 1.38.", BLEND)


def test_a_thousands_separator_still_joins_its_digits() -> None:
    kept("The queue holds 1000 jobs at most.", "The queue holds at most 1,000 jobs.")
    dropped("The queue holds 1 job at most.", "The queue holds at most 1,000 jobs.")
