"""Where `docbot serve` listens in HTTP mode: loopback unless `serve.host` or `--host` says
otherwise (docs/slack.md says why). Checked on the bound socket itself, in /proc/net/tcp."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.app import Answerer
from bot.serve import run_serve
from bot.store import SQLiteAnswerStore
from retrieval.config import Config, ServeConfig, load_config
from retrieval.index import build_index
from tests.bot.conftest import write_config
from tests.bot.e2e import until
from tests.bot.harness import SIGNING_SECRET, fake_slack, settings_for
from tests.ports import free_port

PROC_TCP = Path("/proc/net/tcp")
LISTEN = "0A"
pytestmark = pytest.mark.skipif(not PROC_TCP.exists(), reason="needs Linux's /proc/net/tcp")


def listening_on(port: int) -> set[str]:
    """The IPv4 addresses a socket listens on at `port`, read from the kernel's table."""
    found = set()
    for line in PROC_TCP.read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, port_hex = local.split(":")
        if state == LISTEN and int(port_hex, 16) == port:
            found.add(socket.inet_ntoa(bytes.fromhex(address)[::-1]))
    return found


async def _healthy(host: str, port: int) -> bool:
    with contextlib.suppress(aiohttp.ClientError, OSError):
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://{host}:{port}/healthz") as response,
        ):
            return response.status == 200
    return False


async def _until_healthy(host: str, port: int, timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await _healthy(host, port):
        assert asyncio.get_running_loop().time() < deadline, f"{host}:{port} never answered"
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def serving(
    config: Config, answerer: Answerer, store: SQLiteAnswerStore, host: str | None = None
) -> AsyncIterator[None]:
    async with fake_slack() as slack:
        task = asyncio.create_task(
            run_serve(config, settings_for(slack), answerer, store, host=host)
        )
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


def test_serve_http_listens_on_loopback_only_by_default(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed
    port = free_port()
    config = config.model_copy(update={"serve": ServeConfig(port=port)})  # host: the default

    async def main() -> None:
        async with serving(config, answerer, store):
            await _until_healthy("127.0.0.1", port)
            assert listening_on(port) == {"127.0.0.1"}

    asyncio.run(main())


def test_serve_host_comes_from_the_flag_over_the_config(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """Other loopback addresses stand in for 0.0.0.0, so no test listens beyond this machine."""
    config, answerer = indexed
    port = free_port()
    configured = config.model_copy(update={"serve": ServeConfig(host="127.0.0.2", port=port)})

    async def main() -> None:
        async with serving(configured, answerer, store):
            await _until_healthy("127.0.0.2", port)
            assert listening_on(port) == {"127.0.0.2"}
        await until(lambda: not listening_on(port))
        async with serving(configured, answerer, store, host="127.0.0.3"):
            await _until_healthy("127.0.0.3", port)
            assert listening_on(port) == {"127.0.0.3"}

    asyncio.run(main())


def test_docbot_serve_command_passes_host_and_port(tmp_path: Path) -> None:
    """The real `docbot serve --host --port` process, against the fake Slack on loopback."""
    config_path = write_config(tmp_path)
    build_index(load_config(config_path))
    port = free_port("127.0.0.4")

    async def main() -> None:
        async with fake_slack() as slack:
            env = {
                **os.environ,
                "SLACK_BOT_TOKEN": slack.token,
                "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                "DOCBOT_SLACK_API_URL": slack.url,
            }
            env.pop("SLACK_APP_TOKEN", None)
            env.pop("OPENAI_API_KEY", None)
            command = [sys.executable, "-m", "bot.cli", "serve", "--config", str(config_path),
                       "--host", "127.0.0.4", "--port", str(port)]  # fmt: skip
            process = subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True)
            try:
                await _until_healthy("127.0.0.4", port)
                assert listening_on(port) == {"127.0.0.4"}
            finally:
                process.send_signal(signal.SIGINT)
                _, log = await asyncio.to_thread(process.communicate, timeout=30)
            assert f"listening for Slack events on http://127.0.0.4:{port}" in log

    asyncio.run(main())
