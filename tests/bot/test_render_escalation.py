"""The "Still need help?" wording: offered only when asked for, and a note that mentions the
owners and nobody else."""

from __future__ import annotations

from bot.render import render_answer
from bot.render.escalation import ESCALATE_ACTION, escalate_block, escalation_note
from grounding.answer import Answer, AnswerStatus
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))


def _not_found() -> Answer:
    return Answer(status=AnswerStatus.NOT_FOUND, question="q?", scope=SCOPE)


def test_render_not_found_offers_escalation_only_when_there_are_owners() -> None:
    offered = render_answer(_not_found(), FeedbackConfig(), escalate=True)
    assert offered.blocks[-1] == escalate_block()
    assert offered.blocks[-1]["elements"][0]["action_id"] == ESCALATE_ACTION
    plain = render_answer(_not_found(), FeedbackConfig())
    assert all(block["type"] != "actions" for block in plain.blocks)


def test_render_escalation_note_mentions_the_owners_and_escapes_the_question() -> None:
    note = escalation_note(
        "U0ASKER", "why <!channel> & <@U999> ?", ("<!subteam^S0DOCS>", "U0OWNER"), ("handbook",)
    )
    text = note.blocks[0]["text"]["text"]
    assert "<!subteam^S0DOCS> <@U0OWNER>" in text and "<@U0ASKER>" in text
    assert "&lt;!channel&gt; &amp; &lt;@U999&gt;" in text
    assert "<!channel>" not in text and "<@U999>" not in text
    assert "*handbook*" in text and note.text.strip()
