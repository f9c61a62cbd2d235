"""Which workspace a request comes from, and the one check that docbot serves it: a Bolt
middleware ahead of every listener, so no listener repeats it. A request from a team not in
docbot.yml is acknowledged and dropped (Slack would otherwise retry it) and nothing is called.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from slack_bolt.response import BoltResponse

from bot.live import LiveRuntime

log = logging.getLogger("docbot.slack")

# Payloads that belong to no workspace: the Request URL check when the app is set up.
_TEAMLESS = frozenset({"url_verification"})


def request_team(body: Mapping[str, Any]) -> str | None:
    """The team of an event (`team_id`), an interaction (`team.id`) or a slash command."""
    team = body.get("team_id")
    if isinstance(team, str):
        return team
    nested = body.get("team")
    if isinstance(nested, Mapping) and isinstance(nested.get("id"), str):
        return str(nested["id"])
    return None


def served_teams(runtime: LiveRuntime) -> Callable[..., Awaitable[BoltResponse | None]]:
    """The middleware: lets through only requests of a team in the config of the moment."""

    async def check(
        body: dict[str, Any], next_: Callable[[], Awaitable[None]]
    ) -> BoltResponse | None:
        team = request_team(body)
        if body.get("type") in _TEAMLESS or team in (await runtime.current()).config.teams:
            await next_()
            return None
        log.info("ignoring a %s from unconfigured team %s", body.get("type") or "command", team)
        return BoltResponse(status=200, body="")

    return check
