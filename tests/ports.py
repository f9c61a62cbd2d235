"""Loopback ports for the tests' servers: one free now, and whether one is listening. Kept apart
from tests/bot/harness.py, which loads the Slack app, so that tests/conftest.py (which every
pytest process, the xdist controller too, imports before any test runs) loads nothing heavy."""

from __future__ import annotations

import socket


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now, for `run_serve` (which takes a number, not a socket)."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    """Whether something accepts connections on 127.0.0.1:`port`."""
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
