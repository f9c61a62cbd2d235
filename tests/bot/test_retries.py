"""The Web API client's retries (bot/retries.py) against the fake Slack: what it waits before
each try, recorded through the injected `sleep`; and, once, the production `sleep` really
waiting Slack's Retry-After."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import SecretStr
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator

from bot.app import make_slack_client
from bot.retries import RetryPolicy
from bot.settings import Settings
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import RecordedWaits, fake_slack


def _settings(slack: FakeSlack) -> Settings:
    return Settings(slack_bot_token=SecretStr(slack.token), slack_api_url=slack.url)


async def _post(slack: FakeSlack, retry: RetryPolicy | None) -> bool:
    client = make_slack_client(_settings(slack), retry)
    try:
        await client.chat_postMessage(channel="C0GENERAL", text="hello")
    except SlackApiError:
        return False
    return True


def test_retries_wait_slack_sdk_backoff_on_5xx_and_give_up_after_two() -> None:
    waits = RecordedWaits()

    async def main() -> bool:
        async with fake_slack() as slack:
            slack.fail_next("chat.postMessage", 503, count=3)
            landed = await _post(slack, RetryPolicy(sleep=waits))
            assert len(slack.calls_to("chat.postMessage")) == 3
            return landed

    assert asyncio.run(main()) is False
    # slack_sdk's default: 0.5 s doubling per try, plus up to 1 s of random jitter.
    first, second = waits.seconds
    assert 0.5 <= first < 1.5 and 1.0 <= second < 2.0


@pytest.mark.parametrize(("header", "wait"), [("3", 3.0), ("0", 0.0), ("soon", 1.0), (None, 1.0)])
def test_retries_wait_retry_after_on_429_whatever_the_header_says(
    header: str | None, wait: float
) -> None:
    """Retry-After in seconds; one slack_sdk cannot read (it would raise) counts as 1 s."""
    waits = RecordedWaits()

    async def main() -> bool:
        async with fake_slack() as slack:
            slack.fail_next("chat.postMessage", 429, retry_after=header)
            return await _post(slack, RetryPolicy(sleep=waits, jitter=lambda: 0.25))

    assert asyncio.run(main()) is True
    assert waits.seconds == [wait + 0.25]


def test_retries_take_the_backoff_they_are_given() -> None:
    waits = RecordedWaits()
    policy = RetryPolicy(backoff=FixedValueRetryIntervalCalculator(0.125), sleep=waits)

    async def main() -> bool:
        async with fake_slack() as slack:
            slack.fail_next("chat.postMessage", 500, count=2)
            return await _post(slack, policy)

    assert asyncio.run(main()) is True
    assert waits.seconds == [0.125, 0.125]


def test_retries_default_sleep_really_waits_retry_after() -> None:
    """The production `sleep` (asyncio's): a 429 with Retry-After: 0.3 is tried again no
    sooner than 0.3 s later. The one test that spends a real wait (the jitter it adds by default
    is checked through recorded waits above and in the e2e rate-limit test)."""

    async def main() -> float:
        async with fake_slack() as slack:
            slack.fail_next("chat.postMessage", 429, retry_after="0.3")
            assert await _post(slack, RetryPolicy(jitter=lambda: 0.0))
            first, second = slack.calls_to("chat.postMessage")
            return second.at - first.at

    assert asyncio.run(main()) >= 0.3
