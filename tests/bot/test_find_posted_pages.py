"""replies.find_posted reads a long thread page by page, following Slack's cursor, and gives up
after REPLY_PAGES pages with Unknown rather than calling a message it did not see missing; real
slack_sdk calls against the fake Slack Web API, which pages its answers."""

from __future__ import annotations

import asyncio

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from bot.replies import REPLY_PAGES, Unknown, find_posted, has_metadata
from tests.bot.harness import GENERAL, fake_slack

THREAD = "100.000100"
PAGE = 2  # messages per page the fake answers with, whatever limit docbot asks for
MARK = {"event_type": "docbot_test", "event_payload": {"n": "target"}}


def _find(position: int, replies: int = REPLY_PAGES * PAGE + 1) -> tuple[str | None, int]:
    """find_posted on a thread of `replies` whose reply number `position` is the one looked for
    (none when 0); what it found and how many pages it read."""

    async def main() -> tuple[str | None, int]:
        async with fake_slack() as slack:
            slack.page_size = PAGE
            thread = [{"ts": THREAD, "text": "the question", "thread_ts": THREAD}]
            for n in range(1, replies + 1):
                reply = {"ts": f"{100 + n}.000100", "text": f"reply {n}", "thread_ts": THREAD}
                if n == position:
                    reply["metadata"] = MARK
                thread.append(reply)
            slack.messages[GENERAL] = thread
            client = AsyncWebClient(token=slack.token, base_url=slack.url, retry_handlers=[])
            matches = has_metadata("docbot_test", {"n": "target"})
            try:
                found = await find_posted(client, GENERAL, THREAD, THREAD, matches, "a reply")
            finally:
                pages = len(slack.calls_to("conversations.replies"))
            return found, pages

    return asyncio.run(main())


def test_a_message_on_a_later_page_is_found_by_following_the_cursor() -> None:
    found, pages = _find(position=PAGE * 2)  # the parent is first, so this is on page three
    assert found == f"{100 + PAGE * 2}.000100" and pages == 3


def test_a_message_past_the_last_page_read_is_unknown_not_missing() -> None:
    with pytest.raises(Unknown):
        _find(position=REPLY_PAGES * PAGE + 1)


def test_a_thread_read_to_its_end_without_the_message_is_missing() -> None:
    found, pages = _find(position=0, replies=PAGE * 2)  # no reply carries the mark
    assert found is None and pages == 3
