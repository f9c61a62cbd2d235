"""A replica serving a published index (`index_dir`): a newer version is swapped in, between
questions too; a damaged one is refused and logged while the previous keeps answering."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.health import Readiness
from bot.live import Reload
from bot.store import SQLiteAnswerStore
from retrieval.artifact import builder_lock, current_version, publish
from retrieval.config import Config, load_config
from retrieval.index import build_index
from retrieval.manifest import MANIFEST
from tests.bot.conftest import CORPUS, TEAM
from tests.bot.e2e import reply_text, until
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, fake_slack, mention, running_app
from tests.bot.test_live import NEW_RULE, OLD_RULE, ROLLBACK, CountingLoader, load_answerer

QUESTION = "when should I roll back a deploy?"


def builder_config(folder: Path) -> Path:
    """The builder's docbot.yml: its own state_dir, publishing to folder/published."""
    path = folder / "docbot.yml"
    path.write_text(
        f"state_dir: {folder / 'builder-state'}\nindex_dir: {folder / 'published'}\n"
        f"teams: [{TEAM}]\ncollections:\n  - name: handbook\n    path: {folder / 'handbook'}\n"
        "answer:\n  generator: extractive\n",
        encoding="utf-8",
    )
    return path


def build_and_publish(path: Path) -> str:
    """What `docbot index` does with index_dir set."""
    config = load_config(path)
    assert config.index_dir is not None
    with builder_lock(config.index_dir):
        build_index(config)
        return publish(config, config.index_dir).version


def edit_rule(folder: Path, old: str, new: str) -> None:
    doc = folder / "handbook" / ROLLBACK
    doc.write_text(doc.read_text().replace(old, new), encoding="utf-8")


def ask(slack: FakeSlack, ts: str) -> dict[str, Any]:
    return mention(QUESTION, channel=GENERAL, ts=ts, event_id=f"Ev{ts.replace('.', '')}",
                   bot_user_id=slack.bot_user_id)  # fmt: skip


@pytest.fixture
def published(tmp_path: Path) -> tuple[Path, Config]:
    shutil.copytree(CORPUS / "handbook", tmp_path / "handbook")
    path = builder_config(tmp_path)
    build_and_publish(path)
    return path, load_config(path)


def test_replica_swaps_in_a_new_version_and_refuses_a_damaged_one(
    published: tuple[Path, Config], store: SQLiteAnswerStore, caplog: pytest.LogCaptureFixture
) -> None:
    path, config = published
    folder = path.parent

    async def main() -> None:
        async with fake_slack() as slack:
            slack.set_channel(GENERAL, is_channel=True, name="general")
            reload = Reload(path, load_answerer)
            answerer = load_answerer(config)
            async with running_app(slack, config, answerer, store, reload=reload) as app:
                await app.send(ask(slack, "1.000100"))
                (first,) = await slack.wait_for("chat.postMessage")

                edit_rule(folder, OLD_RULE, NEW_RULE)
                build_and_publish(path)
                await app.send(ask(slack, "1.000200"))
                (_, second) = await slack.wait_for("chat.postMessage", 2)

                # A third version whose snapshot is damaged after publishing (a disk error).
                edit_rule(folder, NEW_RULE, "Roll back at once.")
                build_and_publish(path)
                damage_snapshot(current_version(folder / "published"))
                with caplog.at_level(logging.ERROR, logger="docbot.live"):
                    await app.send(ask(slack, "1.000300"))
                    (*_, third) = await slack.wait_for("chat.postMessage", 3)
                await app.settle()

        assert "doubles" in reply_text(first)
        assert "triples" in reply_text(second) and "doubles" not in reply_text(second)
        assert "triples" in reply_text(third)  # the previous version kept answering
        logged = " ".join(r.getMessage() for r in caplog.records if r.name == "docbot.live")
        assert "damaged" in logged and "previous index" in logged

    asyncio.run(main())


def damage_snapshot(version: Path) -> None:
    manifest = json.loads((version / MANIFEST).read_text())
    snapshot = version / manifest["collections"][0]["snapshot"]
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(data))


def test_replica_watch_swaps_a_new_version_in_without_a_question(
    published: tuple[Path, Config], store: SQLiteAnswerStore
) -> None:
    path, config = published
    loader = CountingLoader()

    async def main() -> None:
        async with fake_slack() as slack:
            readiness = Readiness()
            reload = Reload(path, loader)
            async with running_app(
                slack, config, load_answerer(config), store, reload=reload, readiness=readiness
            ):
                watching = asyncio.create_task(readiness.watch(seconds=0.01))
                try:
                    edit_rule(path.parent, OLD_RULE, NEW_RULE)
                    version = build_and_publish(path)
                    await until(lambda: len(loader.loads) == 1, timeout=20)
                finally:
                    watching.cancel()
                assert await readiness.problems() == ()
        assert loader.loads[0].index_dir == path.parent / "published"
        assert current_version(path.parent / "published").name == version
        assert slack.calls_to("chat.postMessage") == []

    asyncio.run(main())
