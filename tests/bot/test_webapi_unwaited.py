"""A read its caller repeats later rather than wait for (bot.webapi.unwaited): a 429 from the
fake Slack is raised at once, not waited out, and bot.webapi.retry_after reads its Retry-After;
a 5xx is still retried as the client retries it."""

from __future__ import annotations

import asyncio

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.webapi import retry_after, unwaited
from tests.bot.harness import fake_slack, instant_retries


def test_webapi_unwaited_raises_a_429_at_once_with_its_retry_after() -> None:
    async def main() -> None:
        async with fake_slack() as slack:
            policy, waits = instant_retries()
            client = AsyncWebClient(token=slack.token, base_url=slack.url,
                                    retry_handlers=policy.handlers())  # fmt: skip
            slack.fail_next("conversations.replies", 429, retry_after=42)
            with pytest.raises(SlackApiError) as raised:
                await unwaited(client).conversations_replies(channel="C1", ts="1.000100")
            assert retry_after(raised.value) == 42.0 and waits.seconds == []
            assert len(slack.calls_to("conversations.replies")) == 1
            slack.fail_next("conversations.replies", 503)
            response = await unwaited(client).conversations_replies(channel="C1", ts="1.000100")
            assert response.get("ok") and len(waits.seconds) == 1  # the 5xx, retried
            slack.fail_next("conversations.replies", 500, count=3)
            with pytest.raises(SlackApiError) as failed:
                await unwaited(client).conversations_replies(channel="C1", ts="1.000100")
            assert retry_after(failed.value) is None  # not a rate limit
            assert retry_after(ValueError("not Slack's")) is None

    asyncio.run(main())
