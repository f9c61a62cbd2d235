"""Logging a failure where an edge catches broadly, once per cause.

An answer store that cannot be reached says so itself, once when the outage begins and once when
it ends (StoreUnavailable, bot/store/postgres_engine.py); an edge that catches it too would say
it again, with a traceback, for every press, visit or reply while the outage lasts.
"""

from __future__ import annotations

import logging
import sys

from bot.store import StoreUnavailable


def log_failure(logger: logging.Logger, message: str, *args: object) -> None:
    """Inside an `except`: `message` with the traceback; only at debug level, without one, when
    the failure is the store being unreachable (already in the log once)."""
    if isinstance(sys.exc_info()[1], StoreUnavailable):
        logger.debug(message, *args)
    else:
        logger.exception(message, *args)
