"""Where Slack said no to an optional surface (the AI-app status, streaming), per conversation:
docbot then uses the plain way there (:eyes:, one post) at once, for the life of the process.

Only a refusal in Slack's own words counts (HTTP 200, `ok: false`, e.g. `not_allowed`,
`missing_scope`, `unknown_method`); a 429, a 5xx or a timeout says nothing about the feature.
"""

from __future__ import annotations

from bot.events import Turn
from bot.webapi import slack_error_code

# Slack's codes for a failure of the moment, not a refusal of the method here.
TRANSIENT = frozenset({"ratelimited", "fatal_error", "internal_error", "request_timeout",
                       "service_unavailable"})  # fmt: skip


class Refusals:
    """The conversations where Slack refused one method."""

    def __init__(self) -> None:
        self._refused: set[tuple[str, str]] = set()

    def allowed(self, turn: Turn) -> bool:
        return (turn.team, turn.channel) not in self._refused

    def refused(self, turn: Turn) -> None:
        self._refused.add((turn.team, turn.channel))


def refusal(exc: Exception) -> bool:
    """Slack answered (HTTP 200, its JSON) that it will not do this here."""
    code = slack_error_code(exc)
    status = getattr(getattr(exc, "response", None), "status_code", None)
    return code is not None and code not in TRANSIENT and status == 200
