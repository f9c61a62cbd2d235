"""Links in replies come only from the collection's `url` template: document and model text is
escaped, and every mrkdwn text object is `verbatim`, so Slack links no bare URL by itself."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bot.render import Message, render_answer, render_error, render_help, render_input_error
from grounding.answer import Answer, AnswerStatus, Claim, Source
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

PHISH = "https://evil.example/phish"
SOURCE_URL = "https://git.example.com/handbook/blob/main/reset.md#L3-L4"
LINK = re.compile(r"<([^<>|]*)\|[^<>]*>")
SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook",))
UNKNOWN = Scope("T1", "C1", ConversationKind.UNKNOWN, ("handbook",))
# A bare URL, one in Markdown link syntax, one in angle brackets, and a forged Slack link.
DOC_TEXTS = (
    f"Reset it at {PHISH} now.",
    f"See [the reset page]({PHISH}).",
    f"Or <{PHISH}>.",
    f"<{PHISH}|the official reset page>",
)


def text_objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every Block Kit text object (mrkdwn or plain_text) anywhere in `node`."""
    if isinstance(node, dict):
        if node.get("type") in ("mrkdwn", "plain_text") and "text" in node:
            yield node
        for value in node.values():
            yield from text_objects(value)
    elif isinstance(node, list | tuple):
        for item in node:
            yield from text_objects(item)


def assert_links_only_from_templates(message: Message, allowed: set[str]) -> None:
    objects = list(text_objects(message.blocks))
    assert objects
    for obj in objects:
        if obj["type"] == "mrkdwn":
            assert obj.get("verbatim") is True, obj
        links = {url for url in LINK.findall(obj["text"])}
        assert links <= allowed, obj["text"]
        # The document's URL is there as text, but never inside a link's angle brackets.
        assert f"<{PHISH}" not in obj["text"], obj["text"]


def _source(**kw: Any) -> Source:
    fields: dict[str, Any] = {
        "n": 1, "collection": "handbook", "path": "reset.md", "heading": "Reset",
        "start_line": 3, "end_line": 4, "chunk_id": "c1", "updated": "2026-10-02",
        "url": SOURCE_URL,
    }  # fmt: skip
    fields.update(kw)
    return Source(**fields)


def _replies() -> dict[str, Message]:
    claims = tuple(Claim(text, (1,)) for text in DOC_TEXTS)
    sources = (_source(), _source(n=2, path=f"{PHISH}.md", heading=PHISH, url=None))
    feedback = FeedbackConfig()
    return {
        "answered": render_answer(
            Answer(AnswerStatus.ANSWERED, "q", SCOPE, claims=claims, sources=sources), feedback
        ),
        "answered_unverified": render_answer(
            Answer(AnswerStatus.ANSWERED, "q", UNKNOWN, claims=claims, sources=sources), feedback
        ),
        "not_found": render_answer(
            Answer(AnswerStatus.NOT_FOUND, "q", SCOPE, message=DOC_TEXTS[0]), feedback
        ),
        "refused": render_answer(
            Answer(AnswerStatus.REFUSED, "q", SCOPE, message=DOC_TEXTS[3]), feedback
        ),
        "error": render_answer(Answer(AnswerStatus.ERROR, "q", SCOPE, message=PHISH), feedback),
        "help": render_help((PHISH,), feedback),
        "render_error": render_error(DOC_TEXTS[1]),
        "input_error": render_input_error(DOC_TEXTS[2]),
    }


@pytest.mark.parametrize("name", sorted(_replies()))
def test_render_document_urls_are_text_not_links(name: str) -> None:
    message = _replies()[name]
    allowed = {SOURCE_URL} if name.startswith("answered") else set()
    assert_links_only_from_templates(message, allowed)
    assert any(PHISH in obj["text"] for obj in text_objects(message.blocks))


def test_render_source_link_is_the_template_url() -> None:
    text = "\n".join(o["text"] for o in text_objects(_replies()["answered"].blocks))
    assert f"<{SOURCE_URL}|" in text
    assert f"&lt;{PHISH}|the official reset page&gt;" in text  # the forged link, escaped
