"""Readiness, for a load balancer or an orchestrator: may this replica be sent questions now?

Ready means an index is loaded for the current config, the answer store answers, and the process
is not shutting down (during the drain it refuses events, so traffic should go elsewhere).
"""

from __future__ import annotations

import asyncio
import logging

from bot.deps import ListenerDeps

log = logging.getLogger("docbot.serve")

# A store that takes longer than this to answer a trivial query counts as unreachable.
STORE_TIMEOUT_SECONDS = 2.0
# How often `docbot serve` looks for a changed docbot.yml or a newly published index when no
# question arrives to make it look (a question always looks first).
WATCH_SECONDS = 2.0


class Readiness:
    """Bound to the app's listener dependencies by `build_app`."""

    def __init__(self, store_timeout: float = STORE_TIMEOUT_SECONDS) -> None:
        self._deps: ListenerDeps | None = None
        self._store_timeout = store_timeout

    def bind(self, deps: ListenerDeps) -> None:
        self._deps = deps

    async def problems(self) -> tuple[str, ...]:
        """Why this replica is not ready; empty when it is."""
        deps = self._deps
        if deps is None:
            return ("the Slack app is not built yet",)
        found = []
        if not deps.in_flight.accepting:
            found.append("shutting down: finishing the answers in progress")
        if not deps.runtime.serving:
            found.append("no index is loaded for the current docbot.yml (see the log)")
        try:
            await asyncio.wait_for(asyncio.to_thread(deps.store.ping), self._store_timeout)
        except Exception as exc:
            # Any failure of the store's driver means the same here: not reachable now.
            found.append(f"the answer store does not answer ({type(exc).__name__})")
        return tuple(found)

    async def watch(self, seconds: float = WATCH_SECONDS) -> None:
        """Until cancelled: pick up a changed docbot.yml or a new index between questions, so
        a replica swaps in a published version (and readiness reflects it) without traffic."""
        while True:
            await asyncio.sleep(seconds)
            if self._deps is not None:
                await self._deps.runtime.current()
