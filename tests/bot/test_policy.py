"""Channel policy: conversations.info -> kind -> scope, cached with a TTL, failing closed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from bot.app import RATE_LIMIT_RETRIES, SERVER_ERROR_RETRIES, make_slack_client
from bot.policy import ChannelLookupError, ChannelPolicy, conversation_kind, slack_channel_lookup
from bot.settings import Settings
from retrieval.config import Config
from retrieval.scopes import ConversationKind
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import instant_retries

PUBLIC = ("handbook",)
BOTH = ("handbook", "payments")


class CountingLookup:
    """conversations.info answers from a table; unknown channels fail like Slack's errors do."""

    def __init__(self, channels: Mapping[str, Mapping[str, Any]]) -> None:
        self.channels = dict(channels)
        self.calls: list[str] = []

    async def __call__(self, channel_id: str) -> Mapping[str, Any]:
        self.calls.append(channel_id)
        if channel_id not in self.channels:
            raise ChannelLookupError(f"conversations.info {channel_id}: channel_not_found")
        return self.channels[channel_id]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("info", "kind"),
    [
        ({"is_channel": True}, ConversationKind.CHANNEL),
        ({"is_channel": True, "is_private": True}, ConversationKind.PRIVATE),
        ({"is_group": True}, ConversationKind.PRIVATE),
        ({"is_im": True}, ConversationKind.DM),
        ({"is_mpim": True, "is_private": True}, ConversationKind.DM),
        ({"is_channel": True, "is_ext_shared": True, "is_shared": True}, ConversationKind.EXTERNAL),
        ({"is_channel": True, "is_pending_ext_shared": True}, ConversationKind.EXTERNAL),
        ({"is_channel": True, "pending_shared": ["T0OTHER"]}, ConversationKind.EXTERNAL),
        ({"is_channel": True, "is_shared": True}, ConversationKind.EXTERNAL),
        ({"is_channel": True, "is_shared": True, "is_org_shared": True}, ConversationKind.CHANNEL),
        ({"is_private": True, "is_ext_shared": True}, ConversationKind.EXTERNAL),
        ({"is_im": True, "is_ext_shared": True}, ConversationKind.EXTERNAL),
    ],
)
def test_conversation_kind_classifies_outside_sharing_first(
    info: dict[str, Any], kind: ConversationKind
) -> None:
    assert conversation_kind(info) is kind


def test_policy_scope_for_maps_channel_properties_to_collections(config: Config) -> None:
    lookup = CountingLookup(
        {
            "C0GENERAL": {"is_channel": True},
            "C0PAYMENTS": {"is_channel": True, "is_private": True},
            "C0CONNECT": {"is_channel": True, "is_ext_shared": True, "is_shared": True},
            "D0DIRECT": {"is_im": True},
        }
    )
    policy = ChannelPolicy(config, lookup)

    async def scopes() -> dict[str, tuple[str, ...]]:
        return {
            channel: (await policy.scope_for("T0DOCBOT", channel, None)).collections
            for channel in lookup.channels
        }

    assert asyncio.run(scopes()) == {
        "C0GENERAL": PUBLIC, "C0PAYMENTS": BOTH, "C0CONNECT": (), "D0DIRECT": PUBLIC,
    }  # fmt: skip


def test_policy_scope_for_caches_lookups_until_the_ttl_passes(config: Config) -> None:
    lookup = CountingLookup({"C0GENERAL": {"is_channel": True}})
    clock = Clock()
    policy = ChannelPolicy(config, lookup, ttl_seconds=60, clock=clock)

    async def ask() -> None:
        await policy.scope_for("T0DOCBOT", "C0GENERAL", None)

    asyncio.run(ask())
    clock.now += 59
    asyncio.run(ask())
    assert lookup.calls == ["C0GENERAL"]
    lookup.channels["C0GENERAL"] = {"is_channel": True, "is_ext_shared": True}
    clock.now += 2
    asyncio.run(ask())
    assert lookup.calls == ["C0GENERAL", "C0GENERAL"]
    scope = asyncio.run(policy.scope_for("T0DOCBOT", "C0GENERAL", None))
    assert scope.kind is ConversationKind.EXTERNAL and scope.collections == ()


def test_policy_lookup_failure_fails_closed_and_is_retried(config: Config) -> None:
    lookup = CountingLookup({})
    policy = ChannelPolicy(config, lookup)
    general = asyncio.run(policy.scope_for("T0DOCBOT", "C0GENERAL", None))
    payments = asyncio.run(policy.scope_for("T0DOCBOT", "C0PAYMENTS", None))
    assert (general.kind, general.collections) == (ConversationKind.UNKNOWN, PUBLIC)
    # A channel the config grants private access gets nothing rather than a partial answer.
    assert (payments.kind, payments.collections) == (ConversationKind.UNKNOWN, ())
    asyncio.run(policy.scope_for("T0DOCBOT", "C0GENERAL", None))
    assert lookup.calls == ["C0GENERAL", "C0PAYMENTS", "C0GENERAL"]


def _listing_dm(config: Config, dm: str = "public") -> Config:
    """The test config with the payments collection also listing the DM D0DIRECT."""
    collections = [
        c.model_copy(update={"channels": (*c.channels, "D0DIRECT")}) if c.access == "private"
        else c
        for c in config.collections
    ]  # fmt: skip
    conversations = config.conversations.model_copy(update={"dm": dm})
    return config.model_copy(update={"collections": collections, "conversations": conversations})


@pytest.mark.parametrize("dm", ["public", "none"])
@pytest.mark.parametrize("channel", ["C0PAYMENTS", "D0DIRECT"])
def test_policy_im_hint_never_unlocks_private_collections_of_an_unverified_channel(
    config: Config, channel: str, dm: str
) -> None:
    """A listed channel or a listed DM whose lookup fails gets nothing, whatever the event's
    `channel_type` says, and its scope stays UNKNOWN so the reply says it could not verify."""
    policy = ChannelPolicy(_listing_dm(config, dm), CountingLookup({}))
    for channel_type in ("im", "channel", None):
        scope = asyncio.run(policy.scope_for("T0DOCBOT", channel, channel_type))
        assert (scope.kind, scope.collections) == (ConversationKind.UNKNOWN, ()), channel_type


def test_policy_im_hint_only_narrows_an_unverified_conversation(config: Config) -> None:
    """Unlisted and unverifiable: public collections, or none when the event says it is a DM
    and the config gives DMs nothing."""
    for dm, hinted in (("public", PUBLIC), ("none", ())):
        policy = ChannelPolicy(_listing_dm(config, dm), CountingLookup({}))
        scope = asyncio.run(policy.scope_for("T0DOCBOT", "D0OTHER", "im"))
        assert (scope.kind, scope.collections) == (ConversationKind.UNKNOWN, hinted), dm
        scope = asyncio.run(policy.scope_for("T0DOCBOT", "C0GENERAL", None))
        assert (scope.kind, scope.collections) == (ConversationKind.UNKNOWN, PUBLIC), dm


def test_policy_verified_dm_reads_what_the_config_grants_it(config: Config) -> None:
    lookup = CountingLookup({"D0DIRECT": {"is_im": True}})
    scope = asyncio.run(
        ChannelPolicy(_listing_dm(config), lookup).scope_for("T0DOCBOT", "D0DIRECT", "im")
    )
    assert (scope.kind, scope.collections) == (ConversationKind.DM, BOTH)


def test_policy_event_ext_shared_flag_overrides_the_lookup(config: Config) -> None:
    lookup = CountingLookup({"C0PAYMENTS": {"is_channel": True, "is_private": True}})
    scope = asyncio.run(
        ChannelPolicy(config, lookup).scope_for("T0DOCBOT", "C0PAYMENTS", None, ext_shared=True)
    )
    assert (scope.kind, scope.collections) == (ConversationKind.EXTERNAL, ())


def test_policy_unconfigured_team_gets_nothing_without_a_lookup(config: Config) -> None:
    lookup = CountingLookup({"C0GENERAL": {"is_channel": True}})
    scope = asyncio.run(ChannelPolicy(config, lookup).scope_for("T0ELSEWHERE", "C0GENERAL", None))
    assert scope.collections == () and lookup.calls == []


def test_slack_channel_lookup_reads_and_translates_conversations_info(tmp_path: Path) -> None:
    from slack_sdk.web.async_client import AsyncWebClient

    async def scenario() -> None:
        slack = FakeSlack()
        url = await slack.start()
        try:
            slack.set_channel("C0GENERAL", is_channel=True, name="general")
            lookup = slack_channel_lookup(AsyncWebClient(token=slack.token, base_url=url))
            assert (await lookup("C0GENERAL"))["name"] == "general"
            with pytest.raises(ChannelLookupError, match="C0MISSING: channel_not_found"):
                await lookup("C0MISSING")
            assert [c.params["channel"] for c in slack.calls_to("conversations.info")] == [
                "C0GENERAL", "C0MISSING",
            ]  # fmt: skip
        finally:
            await slack.stop()

    asyncio.run(scenario())


@pytest.mark.parametrize(("status", "retry_after"), [(429, 0), (500, None), (503, None)])
def test_policy_rate_limited_or_failing_lookup_through_the_real_client_fails_closed(
    config: Config, status: int, retry_after: int | None
) -> None:
    """The app's own client retries 429/5xx; when Slack keeps failing, the scope is UNKNOWN."""

    async def scenario() -> None:
        slack = FakeSlack()
        await slack.start()
        try:
            slack.set_channel("C0PAYMENTS", is_channel=True, is_private=True)
            slack.set_channel("C0GENERAL", is_channel=True)
            retry, waits = instant_retries()  # slack_sdk's backoff, recorded, not slept
            client = make_slack_client(Settings(slack_bot_token=SecretStr(slack.token),
                                                slack_api_url=slack.url), retry)  # fmt: skip
            policy = ChannelPolicy(config, slack_channel_lookup(client))
            retries = RATE_LIMIT_RETRIES if status == 429 else SERVER_ERROR_RETRIES
            slack.fail_next("conversations.info", status, 1 + retries, retry_after)
            payments = await policy.scope_for("T0DOCBOT", "C0PAYMENTS", None)
            assert (payments.kind, payments.collections) == (ConversationKind.UNKNOWN, ())
            assert len(slack.calls_to("conversations.info")) == 1 + retries  # it did retry
            assert len(waits.seconds) == retries  # and waited before each retry
            slack.fail_next("conversations.info", status, 1 + retries, retry_after)
            general = await policy.scope_for("T0DOCBOT", "C0GENERAL", None)
            assert (general.kind, general.collections) == (ConversationKind.UNKNOWN, PUBLIC)
            # Not cached: once Slack answers again, the channel gets its real scope.
            payments = await policy.scope_for("T0DOCBOT", "C0PAYMENTS", None)
            assert (payments.kind, payments.collections) == (ConversationKind.PRIVATE, BOTH)
        finally:
            await slack.stop()

    asyncio.run(scenario())


def test_policy_lookup_failure_log_says_what_the_channel_gets(
    config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    policy = ChannelPolicy(config, CountingLookup({}))
    with caplog.at_level(logging.WARNING, logger="docbot.policy"):
        asyncio.run(policy.scope_for("T0DOCBOT", "C0GENERAL", None))
        asyncio.run(policy.scope_for("T0DOCBOT", "C0PAYMENTS", None))
    general, payments = (r.getMessage() for r in caplog.records if r.name == "docbot.policy")
    assert "C0GENERAL" in general and "channel_not_found" in general
    assert "public collections only" in general
    assert "C0PAYMENTS" in payments and "no collection" in payments
    assert "public collections only" not in payments
