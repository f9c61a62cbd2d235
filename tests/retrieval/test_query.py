from __future__ import annotations

import pytest

from retrieval.errors import InputError
from retrieval.query import MAX_QUESTION_CHARS, check_question


def test_check_question_strips_surrounding_whitespace() -> None:
    assert check_question("  how do I rotate the key?\n") == "how do I rotate the key?"


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_check_question_refuses_an_empty_question_and_says_what_to_do(text: str) -> None:
    with pytest.raises(InputError, match=r"the question is empty: write a question after"):
        check_question(text)


def test_check_question_accepts_exactly_the_limit() -> None:
    question = "q" * MAX_QUESTION_CHARS
    assert check_question(f" {question} ") == question


def test_check_question_refuses_an_overlong_question_naming_length_and_limit() -> None:
    with pytest.raises(InputError) as raised:
        check_question("x" * 4_321)
    assert "4,321 characters" in str(raised.value)
    assert "4,000" in str(raised.value)
