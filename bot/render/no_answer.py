"""Why an answer shows no claims, in words: the reason codes grounding returns (refused, not
found, the language model failed) worded once, for Slack, `docbot ask` and `docbot search`
alike."""

from __future__ import annotations

from collections.abc import Mapping

from bot.render.text import clip, clip_escaped, escape
from grounding.answer import Answer, AnswerStatus, NoAnswer
from retrieval.scopes import ConversationKind

# An empty UNKNOWN scope: Slack did not tell us what the channel is, so access may well be fine
# (the same words as the pipeline's refusal; shown when an Answer carries no message).
UNVERIFIED = (
    "I could not verify this channel's access settings with Slack, so I answer nothing here "
    "for now; try again in a minute."
)
# A non-empty UNKNOWN scope: the lookup failed and only the public collections were searched.
PUBLIC_ONLY = (
    "I could not verify this channel's settings with Slack, so I searched public collections only."
)
NO_ACCESS = (
    "This conversation may not read any documentation collection, so I can't answer here. "
    "Ask a docbot admin to give it access in `docbot.yml`, or ask me in a channel that has access."
)

# Every answer is this error while docbot cannot serve a changed config (bot/live.py).
OUT_OF_SERVICE = (
    "I can't answer right now: my configuration changed and I can't put it in service yet "
    "(usually my documents need re-indexing). The docbot admins can see why in its log."
)
_ADMINS = "Try again in a minute; the docbot admins can see the details in its log."
# An `error` answer: what went wrong with the language model and what to do. The details (the
# server's reply, which may quote config or a key) are for the log and error_detail only.
MODEL_FAILURE_TEXT: Mapping[NoAnswer, str] = {
    NoAnswer.MODEL_RATE_LIMITED: f"The language model is rate limited right now. {_ADMINS}",
    NoAnswer.MODEL_TIMEOUT: f"The language model took too long to answer. {_ADMINS}",
    NoAnswer.MODEL_UNAVAILABLE: f"The language model is unavailable right now. {_ADMINS}",
    NoAnswer.MODEL_SETUP: (
        "The language model refused docbot's requests, which a docbot admin has to fix (its "
        "key, account or settings); they can see the details in its log. Trying again will "
        "not help until then."
    ),
    NoAnswer.MODEL_REFUSED: (
        "The language model declined to answer this question. Try rephrasing it."
    ),
    NoAnswer.MODEL_INCOMPLETE: (
        "The language model could not produce a valid answer this time. Try again, or ask a "
        "narrower question."
    ),
    NoAnswer.MODEL_INVALID: (
        f"The language model could not produce a valid answer this time. {_ADMINS}"
    ),
}


def no_answer_text(answer: Answer) -> str:
    """Why an answer has no claims, in words (mrkdwn, escaped): its reason code worded here,
    else the message it carries (an answer stored by an older docbot, or one docbot's own
    answerer wrote). The command line prints it too."""
    if answer.reason is NoAnswer.UNVERIFIED_CHANNEL:
        return UNVERIFIED
    if answer.reason is NoAnswer.NO_ACCESS:
        return NO_ACCESS
    if answer.reason is not None:
        failure = MODEL_FAILURE_TEXT.get(answer.reason)
        return failure if failure is not None else _not_found_text(answer.reason, answer)
    message = answer.message.strip()  # an answer stored by an older docbot carries its words
    if message or answer.status is not AnswerStatus.REFUSED:
        return escape(clip(message, 1_000))
    # A refusal stored without a code (an older docbot): by the scope's kind.
    return UNVERIFIED if answer.scope.kind is ConversationKind.UNKNOWN else NO_ACCESS


def _not_found_text(reason: NoAnswer, answer: Answer) -> str:
    """Why a not-found answer shows nothing: fixed words here, never the model's own message
    (that is unverified free text)."""
    read = clip_escaped(escape(", ".join(answer.scope.collections)), 1_000) or "no collections"
    if reason is NoAnswer.NO_CLAIMS:
        return (
            f"I found passages in {read}, but the answer made no statement citing them, so "
            "there is nothing verified to show."
        )
    if reason is NoAnswer.UNVERIFIED:
        dropped = len(answer.dropped_claims)
        statements = "statement" if dropped == 1 else "statements"
        return (
            f"I found passages in {read}, but could not verify an answer against them "
            f"({dropped} {statements} did not match the cited text), so none is shown."
        )
    return f"The documentation this conversation can read ({read}) does not answer this question."
