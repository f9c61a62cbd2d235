"""When a question is rewritten (needs_rewrite), and what is kept of a model's queries."""

from __future__ import annotations

import pytest

from grounding.rewrite import MAX_QUERIES, clean_queries, needs_rewrite, rewrite_input


@pytest.mark.parametrize(
    ("question", "context", "wanted"),
    [
        ("what's the default timeout?", (), False),
        ("how do I set HTTP_PROXY for the client", (), False),
        ("¿cuál es el timeout por defecto?", (), True),
        ("como configuro el proxy ¿", (), True),
        ("SESSION_COOKIE_AGE 默认是多少?", (), True),
        ("and for staging?", ("how do I roll back a deploy?",), True),
        ("and for staging?", ("  ",), False),
    ],
)
def test_rewrite_rule(question: str, context: tuple[str, ...], wanted: bool) -> None:
    assert needs_rewrite(question, context) is wanted


def test_rewrite_queries_are_distinct_trimmed_capped_and_not_the_question() -> None:
    kept = clean_queries(
        ["  default   timeout ", "Default timeout", "", "What is it?", "a", "b", "c"],
        "what is it?",
    )
    assert kept == ("default timeout", "a", "b")
    assert len(kept) == MAX_QUERIES


def test_rewrite_input_names_the_thread_then_the_question() -> None:
    text = rewrite_input("and for staging?", ["how do I roll back?"])
    assert text.index("how do I roll back?") < text.index("Question: and for staging?")
