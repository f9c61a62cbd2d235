"""A number inside code the quotes hold as written is the quotes' own: the code anchors it, even
on a quoted line that has no words ("^= 4.2"). A number of code the quotes do not hold, or one
written in prose, is checked as any other. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

CARET = "A caret pin keeps the major version, for example:\n\n^= 4.2\n\n>= 4.2, < 5"


def test_numbers_in_code_the_quotes_hold_need_no_words_around_them() -> None:
    kept("A caret pin keeps the major version: `^= 4.2` means `>= 4.2, < 5`.", CARET)


def test_code_with_a_changed_number_is_still_dropped() -> None:
    dropped("A caret pin keeps the major version: `^= 4.2` means `>= 4.2, < 6`.", CARET)
    dropped("A caret pin keeps the major version: `^= 4.3` means `>= 4.3, < 5`.", CARET)


def test_a_number_in_prose_still_needs_its_words() -> None:
    dropped("A caret pin keeps the major version 4.2 for five releases.", CARET)


def test_a_code_span_of_markup_alone_is_checked_without_failing() -> None:
    # `**`, `*` and `_` are nothing once markup is normalised; the verifier raised IndexError.
    evidence = "Pass keyword arguments with `**` after 2 positional ones; `*` ends them."
    kept("Pass keyword arguments with `**` after 2 positional ones; `*` ends them.", evidence)
