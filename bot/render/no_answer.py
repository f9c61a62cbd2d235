"""Why an answer shows no claims, in words: the reason codes grounding returns (refused, not
found) worded once, for Slack, `docbot ask` and `docbot search` alike."""

from __future__ import annotations

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


def no_answer_text(answer: Answer) -> str:
    """Why an answer has no claims, in words (mrkdwn, escaped): the refusal's reason code
    worded here, else the pipeline's fixed message. The command line prints it too."""
    if answer.reason is NoAnswer.UNVERIFIED_CHANNEL:
        return UNVERIFIED
    if answer.reason is NoAnswer.NO_ACCESS:
        return NO_ACCESS
    if answer.reason is not None:
        return _not_found_text(answer.reason, answer)
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
