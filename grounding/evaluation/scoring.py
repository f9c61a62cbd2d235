"""What counts as "answered right": the one definition `docbot eval` and the benchmarks share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from grounding.answer import Answer, AnswerStatus


class Expectation(Protocol):
    """What a question set says about one question (EvalQuestion and benchmark rows conform)."""

    @property
    def expected(self) -> Sequence[str]: ...
    @property
    def strings(self) -> Sequence[str]: ...
    @property
    def answerable(self) -> bool: ...


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def gold_in_claim(answer: Answer, q: Expectation) -> bool:
    """A claim holds one of the expected strings (case and spacing aside), whatever it cites."""
    claims = [_norm(c.text) for c in answer.claims]
    return any(_norm(s) in c for s in q.strings for c in claims)


def _names(collection: str, path: str) -> set[str]:
    return {path, f"{collection}/{path}"}


def cites_expected(answer: Answer, q: Expectation) -> bool:
    """A claim cites an expected file (by `path` or `collection/path`)."""
    sources = {s.n: _names(s.collection, s.path) for s in answer.sources}
    cited = set().union(*(sources.get(n, set()) for c in answer.claims for n in c.citations))
    return bool(cited & set(q.expected))


def answered_right(answer: Answer, q: Expectation) -> bool:
    """Answered, citing an expected file and holding an expected string (a question that names
    only one of the two is checked on that one)."""
    return (
        answer.status is AnswerStatus.ANSWERED
        and (not q.expected or cites_expected(answer, q))
        and (not q.strings or gold_in_claim(answer, q))
    )


def retrieved_expected(answer: Answer, q: Expectation) -> bool:
    """An expected file is among the retrieved chunks: the ceiling the generator works under."""
    return any(_names(r.collection, r.path) & set(q.expected) for r in answer.retrieved)


def refused(answer: Answer) -> bool:
    """The answer says the docs do not cover the question."""
    return answer.status is AnswerStatus.NOT_FOUND


def right(answer: Answer, q: Expectation) -> bool:
    """What counts as right for the question's kind."""
    return answered_right(answer, q) if q.answerable else refused(answer)
