"""A question pasted from Slack into `docbot ask` is read as the bot reads it from Slack."""

from __future__ import annotations

from grounding.generators.question import ask
from retrieval.text.slack import markup_words


def test_a_pasted_question_reads_like_the_same_question_from_slack() -> None:
    pasted = "<@U0BOB> see <https://x.example/t|the timeout guide>: how do I set a timeout? <!here>"
    assert ask(pasted, ()).text == "see the timeout guide: how do I set a timeout?"
    assert ask(pasted, ()).text == " ".join(markup_words(pasted).split())
