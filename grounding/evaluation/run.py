"""Asking every question of a set in one scope, and the figures `docbot eval` reports."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from grounding.answer import Answer, AnswerStatus
from grounding.evaluation.questions import EvalQuestion
from grounding.evaluation.scoring import answered_right, refused, right
from retrieval.scopes import Scope


class Answerer(Protocol):
    async def answer(self, question: str, scope: Scope) -> Answer: ...


@dataclass(frozen=True, slots=True)
class Result:
    question: EvalQuestion
    answer: Answer
    ms: float  # the whole pipeline call

    @property
    def right(self) -> bool:
        return right(self.answer, self.question)


@dataclass(frozen=True, slots=True)
class Figures:
    """What one run of a question set measured."""

    answerable: int
    answered_right: int
    answerable_refused: int
    uncovered: int
    uncovered_refused: int
    errors: int  # `error` answers (a failed model call, a timeout)
    gated_answerable: int  # answered not_found by the gate, the generator never called
    gated_uncovered: int
    dropped: tuple[tuple[str, int], ...]  # claims dropped by the verifier, by reason, most first
    p50_ms: float
    p95_ms: float
    input_tokens: int
    output_tokens: int
    generators: tuple[str, ...]


async def run_questions(
    answerer: Answerer,
    questions: Sequence[EvalQuestion],
    scope: Scope,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[Result, ...]:
    """Each question answered in turn (one at a time, so latencies are not each other's)."""
    results = []
    for q in questions:
        started = clock()
        answer = await answerer.answer(q.question, scope)
        results.append(Result(q, answer, (clock() - started) * 1000.0))
    return tuple(results)


def figures(results: Sequence[Result]) -> Figures:
    covered = [r for r in results if r.question.answerable]
    uncovered = [r for r in results if not r.question.answerable]
    dropped = Counter(d.reason for r in results for d in r.answer.dropped_claims)
    times = [r.ms for r in results]
    p50, p95 = (float(v) for v in np.percentile(times, [50, 95])) if times else (0.0, 0.0)
    return Figures(
        answerable=len(covered),
        answered_right=sum(answered_right(r.answer, r.question) for r in covered),
        answerable_refused=sum(refused(r.answer) for r in covered),
        uncovered=len(uncovered),
        uncovered_refused=sum(refused(r.answer) for r in uncovered),
        errors=sum(r.answer.status is AnswerStatus.ERROR for r in results),
        gated_answerable=sum(_gated(r.answer) for r in covered),
        gated_uncovered=sum(_gated(r.answer) for r in uncovered),
        dropped=tuple(sorted(dropped.items(), key=lambda item: (-item[1], item[0]))),
        p50_ms=p50,
        p95_ms=p95,
        input_tokens=sum(r.answer.usage.input_tokens for r in results),
        output_tokens=sum(r.answer.usage.output_tokens for r in results),
        generators=tuple(sorted({r.answer.generator for r in results if r.answer.generator})),
    )


def _gated(answer: Answer) -> bool:
    return answer.gate is not None and not answer.gate.near


def failures(results: Sequence[Result]) -> tuple[Result, ...]:
    """The results that are not right for their question's kind, in the set's order."""
    return tuple(r for r in results if not r.right)
