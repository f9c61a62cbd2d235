"""One spelling of a code span (retrieval.text.markup): what the verifier and the reader read as
code in a claim, a question or an answer unit."""

from __future__ import annotations

from grounding.generators.terms import identifiers
from retrieval.text.markup import code_spans


def test_double_backticks_are_one_span_and_spans_stay_within_a_line() -> None:
    assert code_spans("set ``X``; set it to ``None`` or `a_b`") == ["X", "None", "a_b"]
    assert code_spans("`half\nway`") == []


def test_the_reader_takes_a_question_s_code_names_from_the_same_spans() -> None:
    # Read as single backticks, " b " between two reST literals was a code name too.
    assert identifiers("what do ``alpha`` b ``gamma`` do?") == ("alpha", "gamma")
