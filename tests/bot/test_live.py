"""A running app picks up docbot.yml and index changes before the next question, without a restart.

End to end: the real Bolt app over signed HTTP against the fake Slack, with `docbot index` (the
real `build_index`) run while it serves; and LiveRuntime alone for reloads that fail.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from bot.listeners import Answerer
from bot.live import Live, LiveRuntime, Reload
from bot.policy import ChannelPolicy
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.answer import AnswerStatus
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.errors import ConfigError
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope
from tests.bot.conftest import CORPUS, TEAM
from tests.bot.fake_slack import Call, FakeSlack
from tests.bot.harness import GENERAL, fake_slack, mention, running_app

ROLLBACK = "deploy/rollback.md"
OLD_RULE = "Roll back when the error rate doubles within thirty minutes of a deploy."
NEW_RULE = "Roll back when the error rate triples within ninety minutes of a deploy."


def write_config(folder: Path, handbook_access: str = "public") -> Path:
    """A docbot.yml over a copy of the handbook, whose access the tests change while serving."""
    grant = (
        "\n    access: private\n    channels: [C0ELSEWHERE]" if handbook_access == "private" else ""
    )
    path = folder / "docbot.yml"
    path.write_text(
        f"state_dir: {folder / 'state'}\nteams: [{TEAM}]\ncollections:\n"
        f"  - name: handbook\n    path: {folder / 'handbook'}{grant}\n"
        "answer:\n  generator: extractive\n",
        encoding="utf-8",
    )
    return path


def load_answerer(config: Config) -> Answerer:
    return make_pipeline(config, Index.load(config), ExtractiveGenerator())


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, Config]:
    shutil.copytree(CORPUS / "handbook", tmp_path / "handbook")
    path = write_config(tmp_path)
    config = load_config(path)
    build_index(config)
    return path, config


def reply_text(call: Call) -> str:
    return f"{call.params.get('text', '')}\n{call.params.get('blocks', '')}"


def ask(slack: FakeSlack, text: str, ts: str) -> dict[str, Any]:
    return mention(text, channel=GENERAL, ts=ts, event_id=f"Ev{ts.replace('.', '')}",
                   bot_user_id=slack.bot_user_id)  # fmt: skip


def reindex(path: Path) -> None:
    """What an admin does: edit, then `docbot index` (which rewrites the manifest last)."""
    build_index(load_config(path))


def test_live_private_collection_and_rebuilt_index_apply_to_the_next_question(
    served: tuple[Path, Config], store: SQLiteAnswerStore
) -> None:
    path, config = served
    question = "when should I roll back a deploy?"

    async def main() -> None:
        async with fake_slack() as slack:
            slack.set_channel(GENERAL, is_channel=True, name="general")
            reload = Reload(path, load_answerer)
            answerer = load_answerer(config)
            async with running_app(slack, config, answerer, store, reload=reload) as app:
                await app.send(ask(slack, question, "1.000100"))
                (first,) = await slack.wait_for("chat.postMessage")
                assert ROLLBACK in reply_text(first) and "doubles" in reply_text(first)

                doc = path.parent / "handbook" / ROLLBACK
                doc.write_text(doc.read_text().replace(OLD_RULE, NEW_RULE), encoding="utf-8")
                reindex(path)
                await app.send(ask(slack, question, "1.000200"))
                (_, edited) = await slack.wait_for("chat.postMessage", 2)
                assert "triples" in reply_text(edited) and "doubles" not in reply_text(edited)

                write_config(path.parent, handbook_access="private")
                reindex(path)
                await app.send(ask(slack, question, "1.000300"))
                (*_, private) = await slack.wait_for("chat.postMessage", 3)
                assert ROLLBACK not in reply_text(private)
                assert "triples" not in reply_text(private)

    asyncio.run(main())


def test_live_config_change_alone_narrows_access_before_any_reindex(
    served: tuple[Path, Config], store: SQLiteAnswerStore
) -> None:
    """Access lives in docbot.yml: the next question obeys it even before `docbot index` runs."""
    path, config = served

    async def main() -> None:
        async with fake_slack() as slack:
            slack.set_channel(GENERAL, is_channel=True, name="general")
            reload = Reload(path, load_answerer)
            async with running_app(
                slack, config, load_answerer(config), store, reload=reload
            ) as app:
                write_config(path.parent, handbook_access="private")
                await app.send(ask(slack, "when should I roll back a deploy?", "2.000100"))
                (reply,) = await slack.wait_for("chat.postMessage")
                assert ROLLBACK not in reply_text(reply) and "doubles" not in reply_text(reply)

    asyncio.run(main())


class CountingLoader:
    def __init__(self) -> None:
        self.loads: list[Config] = []

    def __call__(self, config: Config) -> Answerer:
        self.loads.append(config)
        return load_answerer(config)


def runtime_for(path: Path, config: Config, loader: CountingLoader) -> LiveRuntime:
    policy = ChannelPolicy(config, _no_lookup)
    return LiveRuntime(Live(config, load_answerer(config), policy), Reload(path, loader))


async def _no_lookup(channel: str) -> Mapping[str, Any]:
    return {"id": channel, "is_channel": True}


def test_live_runtime_reloads_only_when_a_file_changed(served: tuple[Path, Config]) -> None:
    path, config = served
    loader = CountingLoader()
    runtime = runtime_for(path, config, loader)

    async def main() -> None:
        first = await runtime.current()
        assert await runtime.current() is first and loader.loads == []
        reindex(path)
        second = await runtime.current()
        assert second is not first and len(loader.loads) == 1
        assert await runtime.current() is second

    asyncio.run(main())


def test_live_runtime_keeps_serving_after_an_invalid_config(
    served: tuple[Path, Config], caplog: pytest.LogCaptureFixture
) -> None:
    path, config = served
    loader = CountingLoader()
    runtime = runtime_for(path, config, loader)

    async def main() -> None:
        before = await runtime.current()
        path.write_text("teams: []\ncollections: nope\n", encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="docbot.live"):
            after = await runtime.current()
            again = await runtime.current()
        assert after.config == before.config and after.answerer is before.answerer
        assert again is after and loader.loads == []
        (record,) = [r for r in caplog.records if r.name == "docbot.live"]  # logged once
        assert str(path) in record.getMessage() and "previous" in record.getMessage()
        write_config(path.parent, handbook_access="private")
        fixed = await runtime.current()
        assert fixed.config.collections[0].access == "private"

    asyncio.run(main())


def test_live_runtime_keeps_the_previous_index_when_the_new_one_is_damaged(
    served: tuple[Path, Config], caplog: pytest.LogCaptureFixture
) -> None:
    path, config = served
    runtime = runtime_for(path, config, CountingLoader())
    manifest = Path(config.state_dir) / "index" / "manifest.json"

    async def main() -> None:
        before = await runtime.current()
        manifest.write_text("{not json", encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="docbot.live"):
            after = await runtime.current()
        assert after.answerer is before.answerer
        logged = " ".join(r.getMessage() for r in caplog.records if r.name == "docbot.live")
        assert "docbot index" in logged and "previous index" in logged

    asyncio.run(main())


def test_live_runtime_without_reload_never_looks_at_files(tmp_path: Path) -> None:
    shutil.copytree(CORPUS / "handbook", tmp_path / "handbook")
    config = load_config(write_config(tmp_path))
    build_index(config)
    live = Live(config, load_answerer(config), ChannelPolicy(config, _no_lookup))
    runtime = LiveRuntime(live)
    os.remove(tmp_path / "docbot.yml")
    assert asyncio.run(runtime.current()) is live


def handbook_with_payroll(folder: Path) -> Path:
    """The handbook with a payroll folder inside it holding one confidential page."""
    handbook = folder / "handbook"
    shutil.copytree(CORPUS / "handbook", handbook)
    (handbook / "payroll").mkdir()
    (handbook / "payroll" / "bands.md").write_text(
        "# Bands\n\nThe salary band for staff engineers is confidential-band-77.\n", "utf-8"
    )
    return handbook


def test_live_runtime_fails_closed_when_a_nested_folder_turns_private(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Two public collections may share files; making the inner one private without
    # re-indexing would leave its files in the outer one's index, readable everywhere.
    handbook = handbook_with_payroll(tmp_path)
    path = tmp_path / "docbot.yml"
    both = (
        f"state_dir: {tmp_path / 'state'}\nteams: [{TEAM}]\ncollections:\n"
        f"  - {{name: handbook, path: {handbook}}}\n"
        f"  - {{name: payroll, path: {handbook / 'payroll'}%s}}\n"
    )
    path.write_text(both % "", encoding="utf-8")
    config = load_config(path)
    build_index(config)
    runtime = runtime_for(path, config, CountingLoader())
    scope = resolve_scope(config, TEAM, GENERAL, ConversationKind.CHANNEL)

    async def main() -> None:
        before = await runtime.current()
        assert "confidential-band-77" in str(
            (await before.answerer.answer("salary band staff engineers", scope)).to_dict()
        )
        path.write_text(both % ", access: private, channels: [C0HR]", encoding="utf-8")
        with caplog.at_level(logging.ERROR, logger="docbot.live"):
            after = await runtime.current()
        narrowed = resolve_scope(after.config, TEAM, GENERAL, ConversationKind.CHANNEL)
        answer = await after.answerer.answer("salary band staff engineers", narrowed)
        assert answer.status is AnswerStatus.ERROR
        assert "confidential-band-77" not in str(answer.to_dict()["message"])
        assert "indexed by both" in answer.error_detail
        assert any("answers nothing" in r.getMessage() for r in caplog.records)

    asyncio.run(main())


def test_live_runtime_fails_closed_when_a_new_private_collection_is_not_indexed_yet(
    tmp_path: Path,
) -> None:
    # A new private collection nested in a public one: until `docbot index` runs, the old
    # index still files its documents under the public collection.
    handbook = handbook_with_payroll(tmp_path)
    path = tmp_path / "docbot.yml"
    public = (
        f"state_dir: {tmp_path / 'state'}\nteams: [{TEAM}]\ncollections:\n"
        f"  - {{name: handbook, path: {handbook}}}\n"
    )
    path.write_text(public, encoding="utf-8")
    config = load_config(path)
    build_index(config)
    runtime = runtime_for(path, config, CountingLoader())
    added = (
        f"  - {{name: payroll, path: {handbook / 'payroll'}, access: private, channels: [C0HR]}}\n"
    )

    async def main() -> None:
        await runtime.current()
        path.write_text(public + added, encoding="utf-8")
        after = await runtime.current()
        scope = resolve_scope(after.config, TEAM, GENERAL, ConversationKind.CHANNEL)
        answer = await after.answerer.answer("salary band staff engineers", scope)
        assert answer.status is AnswerStatus.ERROR
        assert "confidential-band-77" not in str(answer.to_dict())
        reindexed_config = load_config(path)
        with pytest.raises(ConfigError):  # the admin must also exclude the nested folder
            build_index(reindexed_config)

    asyncio.run(main())
