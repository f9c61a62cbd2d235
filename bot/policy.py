"""Channel policy: what kind of conversation a channel is (via conversations.info), hence its Scope.

Lookups are cached for a short TTL; anything that cannot be verified fails closed (design.md).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.webapi import SLACK_CALL_ERRORS, slack_error
from retrieval.config import Config
from retrieval.scopes import ConversationKind, Scope, narrow_scope, resolve_scope

log = logging.getLogger("docbot.policy")

# channel id -> the `channel` object of conversations.info; raises ChannelLookupError.
ChannelLookup = Callable[[str], Awaitable[Mapping[str, Any]]]


class ChannelLookupError(Exception):
    """conversations.info did not answer; the policy turns this into ConversationKind.UNKNOWN."""


def conversation_kind(info: Mapping[str, Any]) -> ConversationKind:
    """Classify a conversations.info `channel` object, outside-the-org sharing first."""
    if info.get("is_ext_shared") or info.get("is_pending_ext_shared") or info.get("pending_shared"):
        return ConversationKind.EXTERNAL
    # Shared but not within our own Enterprise org: the other side is another organisation.
    if info.get("is_shared") and not info.get("is_org_shared"):
        return ConversationKind.EXTERNAL
    if info.get("is_im") or info.get("is_mpim"):
        return ConversationKind.DM
    if info.get("is_private") or info.get("is_group"):
        return ConversationKind.PRIVATE
    return ConversationKind.CHANNEL


def slack_channel_lookup(client: AsyncWebClient) -> ChannelLookup:
    """conversations.info through the app's Web API client, errors translated at this seam."""

    async def lookup(channel_id: str) -> Mapping[str, Any]:
        try:
            response = await client.conversations_info(channel=channel_id)
        except SLACK_CALL_ERRORS as exc:
            error = slack_error(exc)
            raise ChannelLookupError(f"conversations.info {channel_id}: {error}") from exc
        channel = response.get("channel")
        if not isinstance(channel, Mapping):
            raise ChannelLookupError(f"conversations.info {channel_id}: no channel in the response")
        return channel

    return lookup


@dataclass(slots=True)
class _Cached:
    kind: ConversationKind
    expires: float


class ChannelPolicy:
    """Scopes for conversations; one conversations.info call per channel per `ttl_seconds`."""

    def __init__(
        self,
        config: Config,
        lookup: ChannelLookup,
        *,
        ttl_seconds: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._lookup = lookup
        self._ttl = ttl_seconds
        self._clock = clock
        self._cache: dict[tuple[str, str], _Cached] = {}

    def reconfigured(self, config: Config) -> ChannelPolicy:
        """The same lookups and cache under another config: what a channel *is* does not
        depend on docbot.yml, only which collections it may read."""
        policy = ChannelPolicy(config, self._lookup, ttl_seconds=self._ttl, clock=self._clock)
        policy._cache = self._cache
        return policy

    async def scope_for(
        self,
        team_id: str,
        channel_id: str,
        channel_type: str | None,
        *,
        ext_shared: bool = False,
    ) -> Scope:
        """The event's own flags can only narrow access, never widen it: `ext_shared` makes the
        conversation external, and `channel_type` counts only when the lookup fails, and then
        only to take away what the config denies DMs (an event is not proof of what a
        conversation is, so an unverified "im" never reads a private collection)."""
        if team_id not in self._config.teams:
            return resolve_scope(self._config, team_id, channel_id, ConversationKind.UNKNOWN)
        if ext_shared:
            return resolve_scope(self._config, team_id, channel_id, ConversationKind.EXTERNAL)
        kind, failure = await self._kind(team_id, channel_id)
        scope = resolve_scope(self._config, team_id, channel_id, kind)
        if failure is not None:
            if channel_type == "im":
                scope = narrow_scope(
                    scope, resolve_scope(self._config, team_id, channel_id, ConversationKind.DM)
                )
            # Logged after resolving, so it says what the channel really gets.
            log.warning(
                "channel %s could not be verified (%s); %s", channel_id, failure, _outcome(scope)
            )
        return scope

    async def _kind(self, team_id: str, channel_id: str) -> tuple[ConversationKind, str | None]:
        """The channel's kind, and why it could not be looked up (None when it could)."""
        key = (team_id, channel_id)
        cached = self._cache.get(key)
        now = self._clock()
        if cached is not None and cached.expires > now:
            return cached.kind, None
        try:
            info = await self._lookup(channel_id)
        except ChannelLookupError as exc:
            # Not cached: the next question retries, and until then we fail closed.
            return ConversationKind.UNKNOWN, str(exc)
        kind = conversation_kind(info)
        self._cache[key] = _Cached(kind, now + self._ttl)
        return kind, None


def _outcome(scope: Scope) -> str:
    names = ", ".join(scope.collections)
    if scope.collections:
        return f"searching public collections only ({names})"
    return (
        "answering from no collection (the config grants it private ones, or has no public "
        "collection, or gives DMs none and its event says it is a DM, and an unverified "
        "conversation may read neither)"
    )
