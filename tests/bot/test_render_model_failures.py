"""An `error` answer in Slack and on the command line: grounding says which way the language
model failed, as a reason code; bot/render words it, and the server's own words (which may
quote a key or a config hint) never reach the conversation."""

from __future__ import annotations

import asyncio

import pytest

from bot.live import Unavailable
from bot.render import render_answer
from bot.render.no_answer import no_answer_text
from grounding.answer import Answer, AnswerStatus, NoAnswer
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))
DETAIL = "auth: HTTP 401: Incorrect API key provided: sk-proj-****wxyz; check OPENAI_API_KEY"


def _failed(reason: NoAnswer | None, message: str = "") -> Answer:
    return Answer(
        AnswerStatus.ERROR, "how do I roll back?", SCOPE, message=message, reason=reason,
        error_detail=DETAIL,
    )  # fmt: skip


def _seen(answer: Answer) -> str:
    message = render_answer(answer, FeedbackConfig())
    texts = [message.text] + [str(block) for block in message.blocks]
    return " ".join(texts)


@pytest.mark.parametrize(
    ("reason", "says"),
    [
        (NoAnswer.MODEL_RATE_LIMITED, "The language model is rate limited right now."),
        (NoAnswer.MODEL_TIMEOUT, "The language model took too long to answer."),
        (NoAnswer.MODEL_UNAVAILABLE, "The language model is unavailable right now."),
        (NoAnswer.MODEL_SETUP, "refused docbot's requests, which a docbot admin has to fix"),
        (NoAnswer.MODEL_REFUSED, "declined to answer this question. Try rephrasing it."),
        (NoAnswer.MODEL_INCOMPLETE, "Try again, or ask a narrower question."),
        (NoAnswer.MODEL_INVALID, "could not produce a valid answer this time."),
    ],
)
def test_render_a_model_failure_words_its_code_never_the_detail(
    reason: NoAnswer, says: str
) -> None:
    seen = _seen(_failed(reason))
    assert seen.startswith(":warning: Sorry, I could not answer this. ") and says in seen
    assert says in no_answer_text(_failed(reason))  # `docbot ask` prints the same words
    assert "sk-" not in seen and "OPENAI_API_KEY" not in seen and "401" not in seen
    # The words already say what to do; the reply does not say it twice.
    assert render_answer(_failed(reason), FeedbackConfig()).text.count(says) == 1


def test_render_an_error_stored_by_an_older_docbot_shows_its_message() -> None:
    """Before reason codes the pipeline put its words in `message`; such answers in the store
    (App Home, a shared answer) still read the same."""
    older = _failed(None, "The language model took too long to answer. Try again in a minute.")
    assert "took too long to answer. Try again in a minute." in _seen(older)


def test_render_out_of_service_says_why_and_who_can_fix_it() -> None:
    """After a config change docbot cannot serve, every answer is this error (bot/live.py)."""
    answer = asyncio.run(Unavailable("ConfigError: x").answer("how?", SCOPE))
    seen = _seen(answer)
    assert (
        "my configuration changed" in seen and "re-indexing" in seen and "ConfigError" not in seen
    )


def test_render_a_refused_key_or_request_does_not_say_try_again_in_a_minute() -> None:
    """A rejected key, an exhausted quota or an unknown model stays so until an admin acts:
    "try again in a minute" sent askers back to a wall."""
    seen = no_answer_text(_failed(NoAnswer.MODEL_SETUP))
    assert "Try again in a minute" not in seen
    assert "Trying again will not help until then" in seen
