"""A claim may open by answering a yes/no question with a short "Not ...:" lead ("Not with Pool
itself: ...", "Not by default: ..."): like "No:", it answers the question, it negates none of the
words after it, which are checked as any claim's. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification import support_problem

EVIDENCE = "The third-party `pool-retry` plugin adds backoff support to Pool."


def test_a_short_not_lead_answering_the_question_is_no_negation() -> None:
    claim = "Not with Pool itself: the third-party `pool-retry` plugin adds backoff support."
    assert support_problem(claim, EVIDENCE) is None
    assert (
        support_problem("Not out of the box: `pool-retry` adds backoff to Pool.", EVIDENCE) is None
    )


def test_the_words_after_the_lead_are_still_read_for_negation() -> None:
    claim = "Not with Pool itself: the `pool-retry` plugin does not add backoff support."
    problem = support_problem(claim, EVIDENCE)
    assert problem is not None and "'not'" in problem


def test_a_not_that_opens_a_statement_is_still_a_negation() -> None:
    problem = support_problem("Not every plugin adds backoff support to Pool.", EVIDENCE)
    assert problem is not None and "'not'" in problem
