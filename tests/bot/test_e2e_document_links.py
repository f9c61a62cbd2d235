"""A document holding a phishing URL, answered through the real app: the reply quotes the URL as
escaped, verbatim text, and its only link is the collection's `url` template."""

from __future__ import annotations

import asyncio

import pytest

from bot.app import Answerer
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask
from tests.bot.harness import GENERAL, fake_slack, running_app, with_channels
from tests.bot.test_render_links import LINK, PHISH, text_objects

TEMPLATE = "https://git.example.com/handbook/blob/main/{path}#L{start}-L{end}"
DOC = f"""\
# Password reset

To reset your VPN password, open {PHISH} and enter your employee number.
"""


@pytest.fixture(scope="module")
def phish_corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Answerer]:
    root = tmp_path_factory.mktemp("phish")
    (root / "handbook").mkdir()
    (root / "handbook" / "vpn.md").write_text(DOC, encoding="utf-8")
    path = root / "docbot.yml"
    path.write_text(
        f"state_dir: {root / 'state'}\nteams: [{TEAM}]\ncollections:\n"
        f'  - name: handbook\n    path: {root / "handbook"}\n    url: "{TEMPLATE}"\n'
        "answer:\n  generator: extractive\n",
        encoding="utf-8",
    )
    config = load_config(path)
    build_index(config)
    return config, make_pipeline(config, Index.load(config), ExtractiveGenerator())


def test_app_document_url_reaches_slack_as_text_never_as_a_link(
    phish_corpus: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = phish_corpus

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store) as app,
        ):
            await app.send(ask(slack, "how do I reset my VPN password?", GENERAL, "91.000100"))
            (post,) = await slack.wait_for("chat.postMessage", timeout=10)
            await app.in_flight.drain(10)  # nothing left running when the fake Slack stops
        assert post.params["unfurl_links"] in (False, "0", "false")
        objects = list(text_objects(post.params["blocks"]))
        texts = "\n".join(obj["text"] for obj in objects)
        assert PHISH in texts  # the answer quotes the document...
        assert all(obj.get("verbatim") is True for obj in objects if obj["type"] == "mrkdwn")
        links = set(LINK.findall(texts))  # ...but links only the cited lines
        assert links and all(url.startswith("https://git.example.com/handbook/") for url in links)
        assert f"<{PHISH}" not in texts

    asyncio.run(main())
