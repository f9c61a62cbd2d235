"""What a Slack Web API call can raise, in one place, so every caller catches the same set.

slack_sdk raises SlackApiError for an error reply and SlackClientError for its own failures,
but the async client lets aiohttp's transport errors through as they are: a dropped
connection (ServerDisconnectedError) is an aiohttp.ClientError, not an OSError.
"""

from __future__ import annotations

import aiohttp
from slack_sdk.errors import SlackClientError

SLACK_CALL_ERRORS: tuple[type[Exception], ...] = (
    SlackClientError,  # includes SlackApiError
    aiohttp.ClientError,
    OSError,
    TimeoutError,
)
