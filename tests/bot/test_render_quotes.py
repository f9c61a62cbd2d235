"""Each claim's quote in the reply: a paraphrase shows the passage it was checked against, a claim
that is its own quote does not repeat it, one in another language says what was checked."""

from __future__ import annotations

import io

from bot.cli_output import print_answer
from bot.render import quotes_to_show, render_answer
from bot.render.answers import MAX_QUOTES_SHOWN, OTHER_LANGUAGE_NOTE, QUOTE_CHARS
from grounding.answer import Answer, AnswerStatus, Claim, Source
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

SOURCE = Source(1, "handbook", "deploy.md", "Rollback", 40, 52, None, "abc", "2026-10-02")


def _reply(*claims: Claim) -> str:
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))
    answer = Answer(AnswerStatus.ANSWERED, "q", scope, claims=claims, sources=(SOURCE,))
    message = render_answer(answer, FeedbackConfig())
    return "\n".join(b["text"]["text"] for b in message.blocks if b["type"] == "section")


def test_a_paraphrase_shows_its_quote_under_it_escaped() -> None:
    claim = Claim("You run `deploy <env>` & wait.", (1,), ("Run `deploy <env>`\n & wait.",))
    assert _reply(claim).endswith("\n>“Run `deploy &lt;env&gt;` &amp; wait.”")


def test_a_claim_that_is_its_own_quote_shows_no_quote_line() -> None:
    text = "```yaml\naccess: private\n```"
    assert quotes_to_show(Claim(text, (1,), (text,))) == ()
    assert quotes_to_show(Claim("Rollbacks take 5 minutes.", (1,), ("take 5 minutes",))) == ()
    assert ">“" not in _reply(Claim("Rollbacks take 5 minutes.", (1,), ("Rollbacks take 5",)))


def test_quotes_are_cut_and_at_most_three_are_shown() -> None:
    quotes = tuple(f"Quote {i} " + "word " * 200 for i in range(5))
    reply = _reply(Claim("A paraphrase.", (1,), quotes))
    lines = [line for line in reply.splitlines() if line.startswith(">")]
    assert len(lines) == MAX_QUOTES_SHOWN
    assert all(len(line) <= QUOTE_CHARS + 3 for line in lines)


def test_a_claim_in_another_language_always_shows_its_quote_and_what_was_checked() -> None:
    quote = "A rollback takes 5 minutes."
    claim = Claim("A rollback takes 5 minutes.", (1,), (quote,), other_language=True)
    assert _reply(claim).splitlines()[-2:] == [f">“{quote}”", f">_{OTHER_LANGUAGE_NOTE}_"]


def test_docbot_ask_prints_the_quotes_too() -> None:
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))
    claim = Claim("You roll back with make.", (1,), ("Run `make rollback`.",))
    answer = Answer(AnswerStatus.ANSWERED, "q", scope, claims=(claim,), sources=(SOURCE,))
    out = io.StringIO()
    print_answer(answer, out)
    assert "- You roll back with make. [1]\n  > Run `make rollback`.\n" in out.getvalue()
