"""Why nothing is shown, worded in bot/render from the reason codes grounding returns: the
collections read, the count of statements that failed, and never the model's own message."""

from __future__ import annotations

from bot.render import render_answer
from bot.render.no_answer import no_answer_text
from grounding.answer import Answer, AnswerStatus, DroppedClaim, NoAnswer
from retrieval.config import FeedbackConfig
from tests.grounding.fakes import make_scope

SCOPE = make_scope("handbook", "payments")


def _not_found(reason: NoAnswer | None, dropped: int = 0, message: str = "") -> Answer:
    return Answer(
        status=AnswerStatus.NOT_FOUND,
        question="how do I delete the database?",
        scope=SCOPE,
        reason=reason,
        message=message,
        dropped_claims=tuple(DroppedClaim(f"claim {n}", "unsupported") for n in range(dropped)),
    )


def test_not_in_docs_names_the_collections_read() -> None:
    text = no_answer_text(_not_found(NoAnswer.NOT_IN_DOCS))
    assert text == (
        "The documentation this conversation can read (handbook, payments) does not answer "
        "this question."
    )


def test_unverified_counts_the_statements_that_failed() -> None:
    assert "could not verify" in no_answer_text(_not_found(NoAnswer.UNVERIFIED, 1))
    assert "(1 statement did not" in no_answer_text(_not_found(NoAnswer.UNVERIFIED, 1))
    assert "(3 statements did not" in no_answer_text(_not_found(NoAnswer.UNVERIFIED, 3))


def test_no_claims_says_the_answer_cited_nothing() -> None:
    text = no_answer_text(_not_found(NoAnswer.NO_CLAIMS))
    assert "made no statement" in text and "handbook, payments" in text


def test_the_reply_shows_the_reason_under_the_not_found_line() -> None:
    message = render_answer(_not_found(NoAnswer.NOT_IN_DOCS), FeedbackConfig())
    assert "does not answer this question" in str(message.blocks)


def test_an_answer_stored_without_a_reason_keeps_its_own_words() -> None:
    older = _not_found(None, message="The documentation this conversation can read (x) does not.")
    assert no_answer_text(older) == "The documentation this conversation can read (x) does not."
