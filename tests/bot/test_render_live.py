"""bot/render/live.py: the status line per stage, and the pieces of a streamed answer (rendered
like a single post: escaped, linked only from Source.url, quotes under their claim)."""

from __future__ import annotations

import json

from bot.render import render_answer
from bot.render.feedback import feedback_block
from bot.render.live import more_claims_note, status_for, stream_tail, streamed_claim
from grounding.answer import Answer, AnswerStatus, Claim, Source
from grounding.progress import Checking, Reading, Searching, Verified
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

SOURCE = Source(1, "handbook", "deploy.md", "Rollback", 3, 9, "https://git.example/deploy.md#L3",
                "c1", "2026-11-01")  # fmt: skip
CLAIM = Claim("Roll back <!channel> & wait.", (1,), ("the rollback <b>quote</b> itself",))


def test_status_names_the_stage_and_counts() -> None:
    assert status_for(Searching(("payments", "handbook"))).text == "Searching payments, handbook…"  # type: ignore[union-attr]
    assert status_for(Reading(1)).loading_messages == ("Reading 1 passage…",)  # type: ignore[union-attr]
    assert status_for(Checking(4)).text == "Checking 4 claims…"  # type: ignore[union-attr]
    assert status_for(Verified(CLAIM, (SOURCE,))) is None
    long = status_for(Searching(tuple(f"collection-{n}" for n in range(30))))
    assert long is not None and len(long.text) <= 120 and long.text.endswith("…")


def test_streamed_claim_is_escaped_linked_and_quoted_like_a_post() -> None:
    block = streamed_claim(CLAIM, (SOURCE,))
    text = block["text"]["text"]
    assert "&lt;!channel&gt; &amp; wait" in text and "<!channel>" not in text
    assert "<https://git.example/deploy.md#L3|[1]>" in text
    assert "the rollback &lt;b&gt;quote&lt;/b&gt; itself" in text
    assert block["text"]["verbatim"] is True


def test_stream_tail_is_what_follows_the_claims_of_a_post() -> None:
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))
    answer = Answer(AnswerStatus.ANSWERED, "q", scope, claims=(CLAIM,), sources=(SOURCE,))
    tail = stream_tail(answer, FeedbackConfig())
    posted = render_answer(answer, FeedbackConfig()).blocks
    assert posted[-len(tail) :] == tail and tail[-1] == feedback_block()
    assert "Sources" in json.dumps(tail)
    assert "2 more claims not shown" in json.dumps(more_claims_note(2))
