"""/healthz and /readyz over real HTTP: ready with an index and a store that answers; 503 and why
when the store is gone, the index cannot be loaded for the config, or the process is draining."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import aiohttp

from bot.app import Answerer
from bot.health import Readiness
from bot.live import Reload
from bot.serve import run_serve
from bot.store import PostgresAnswerStore, SQLiteAnswerStore
from retrieval.config import Config, load_config
from retrieval.errors import IndexNotBuiltError
from tests.bot.conftest import write_config
from tests.bot.e2e import LogSignal, SlowAnswerer, ask, until
from tests.bot.harness import (
    GENERAL,
    RunningApp,
    fake_slack,
    post_event,
    running_app,
    settings_for,
    with_channels,
)
from tests.ports import free_port, listening
from tests.postgres_server import PostgresServer


async def probe(session: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with session.get(url) as response:
        return response.status, await response.text()


def base(app: RunningApp) -> str:
    return app.url.removesuffix("/slack/events")


def test_readyz_is_ready_then_not_once_the_store_is_gone(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    config, answerer = indexed
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")

    async def main() -> None:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store,
                        readiness=Readiness()) as app,
        ):  # fmt: skip
            ready = await probe(app.session, base(app) + "/readyz")
            store.close()  # the database is gone: not ready, though the process is up
            gone = await probe(app.session, base(app) + "/readyz")
            health = await probe(app.session, base(app) + "/healthz")
        assert ready == (200, "ready\n")
        assert gone[0] == 503 and "the answer store does not answer (StoreError)" in gone[1]
        assert health[0] == 200

    asyncio.run(main())


def test_readyz_is_not_ready_while_no_index_serves_the_config(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore, tmp_path: Path
) -> None:
    """docbot.yml changed and its index cannot be loaded: every answer is an error, so the
    replica says it is not ready until the index is there."""
    _, answerer = indexed
    path = write_config(tmp_path)
    config = load_config(path)

    def cannot_load(_: Config) -> Answerer:
        raise IndexNotBuiltError("no search index: run `docbot index` first")

    async def main() -> None:
        reload = Reload(path, cannot_load)
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store, reload=reload,
                        readiness=Readiness()) as app,
        ):  # fmt: skip
            before = await probe(app.session, base(app) + "/readyz")
            path.write_text(path.read_text().replace("dm: public", "dm: none"))
            await app.send(ask(slack, "who is on call?", GENERAL, "74.000100"))
            await slack.wait_for("chat.postMessage")
            await app.settle()
            after = await probe(app.session, base(app) + "/readyz")
        assert before[0] == 200
        assert after[0] == 503 and "no index is loaded for the current docbot.yml" in after[1]

    asyncio.run(main())


def test_readyz_says_503_while_serve_drains_and_the_answer_still_posts(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """HTTP mode keeps listening through the drain: a load balancer sees 503 and moves on, an
    event arriving then is refused for Slack to deliver elsewhere, the answer in progress posts."""
    config, real = indexed
    port = free_port()
    release = asyncio.Event()

    async def main() -> None:
        slow = SlowAnswerer(real, seconds=10, release=release)
        with LogSignal("docbot.serve", "answer(s) in progress") as draining:
            async with fake_slack() as slack:
                server = asyncio.create_task(run_serve(
                    config, settings_for(with_channels(slack)), slow, store, port=port,
                    host="127.0.0.1",
                ))  # fmt: skip
                await until(lambda: listening(port))
                origin = f"http://127.0.0.1:{port}"
                async with aiohttp.ClientSession() as session:
                    assert (await probe(session, origin + "/readyz"))[0] == 200
                    url = origin + "/slack/events"
                    await post_event(session, url, ask(slack, "who is on call?", GENERAL, "75.1"))
                    await asyncio.wait_for(slow.started.wait(), 5)
                    server.cancel()
                    await asyncio.wait_for(draining.event.wait(), 5)
                    during = await probe(session, origin + "/readyz")
                    late = await post_event(session, url, ask(slack, "late?", GENERAL, "75.2"))
                    release.set()
                    with contextlib.suppress(asyncio.CancelledError):
                        await server
                assert during[0] == 503 and "shutting down" in during[1]
                assert late[0] == 503
                assert [c.params["thread_ts"] for c in slack.posted()] == ["75.1"]
                assert not listening(port)

    asyncio.run(main())


def test_readyz_follows_a_real_postgresql_server_down_and_up(
    indexed: tuple[Config, Answerer], private_postgres: PostgresServer
) -> None:
    """The store's reachability is asked of the server itself: stopped, 503 naming the store;
    started again (same port), ready, with no restart of docbot."""
    config, answerer = indexed
    store = PostgresAnswerStore(private_postgres.create_database("ready"), timeout_seconds=2)

    async def main() -> list[tuple[int, str]]:
        async with (
            fake_slack() as slack,
            running_app(with_channels(slack), config, answerer, store,
                        readiness=Readiness()) as app,
        ):  # fmt: skip
            seen = [await probe(app.session, base(app) + "/readyz")]
            await asyncio.to_thread(private_postgres.stop)
            seen.append(await probe(app.session, base(app) + "/readyz"))
            await asyncio.to_thread(private_postgres.start)
            seen.append(await probe(app.session, base(app) + "/readyz"))
            return seen

    try:
        up, down, back = asyncio.run(main())
    finally:
        store.close()
    assert up == (200, "ready\n") and back == (200, "ready\n")
    assert down[0] == 503 and "the answer store does not answer (StoreUnavailable)" in down[1]
