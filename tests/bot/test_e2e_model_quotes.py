"""A model's claims reach Slack with their quotes, through the real app and the real client.

The reply shows the passage behind a paraphrased claim (a quoted line under it) and always
behind a claim in another language than its evidence (only its quote, numbers and names could be
checked), so the reader can check the rest without opening the link.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

from bot.app import Answerer
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.e2e import ask, wait_for_replies
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.bot.model_pipeline import model_pipeline
from tests.grounding.fake_openai import FakeOpenAI, Recorded, Reply, answer

QUOTE = "Run `make rollback ENV=production` to return to the previous release."
PARAPHRASE = "You return to the previous release with `make rollback ENV=production`."
SPANISH = "Para volver a la versión anterior, ejecuta `make rollback ENV=production`."
SHOWN = f">“{QUOTE}”"  # the quoted line under the claim, as Slack's mrkdwn shows it
_ITEM = re.compile(r'id="(E\d+)">(.*?)</', re.S)


def _citing_the_quote(claim: str) -> Callable[[Recorded], Reply | None]:
    def respond(recorded: Recorded) -> Reply | None:
        prompt = json.dumps(recorded.body).replace("\\n", "\n").replace('\\"', '"')
        label = next(e for e, text in _ITEM.findall(prompt) if QUOTE in text)
        return answer([(claim, [label], [QUOTE])])

    return respond


def _reply_to(claim: str, indexed: tuple[Config, Answerer], tmp_path: Path) -> str:
    """Everything docbot sent Slack for one mention: what the reader sees."""
    config, _ = indexed
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")

    async def main() -> str:
        async with (
            FakeOpenAI(respond=_citing_the_quote(claim)) as server,
            model_pipeline(config, server, "gpt-t") as pipeline,
            fake_slack() as slack,
            running_app(with_channels(slack), config, pipeline, store) as app,
        ):
            await app.send(ask(slack, "how do I roll back a deploy?", GENERAL, "41.000100"))
            # A model's answer is streamed (bot/streaming.py): the reply is every piece of it.
            await wait_for_replies(slack)
            pieces = [c.params for c in slack.calls if c.method.startswith("chat.")]
            return json.dumps(pieces, ensure_ascii=False)

    try:
        return asyncio.run(main())
    finally:
        store.close()


def test_app_reply_shows_the_quote_under_a_paraphrased_claim(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    text = _reply_to(PARAPHRASE, indexed, tmp_path)
    assert "You return to the previous release" in text
    assert SHOWN in text


def test_app_reply_shows_the_quote_under_a_claim_in_another_language(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    text = _reply_to(SPANISH, indexed, tmp_path)
    assert "Para volver a la versión anterior" in text
    assert SHOWN in text
