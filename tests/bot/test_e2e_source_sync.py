"""`docbot serve` picks up a pushed commit within one sync interval: the real Bolt app over
signed HTTP answers from the old commit, the remote gets a push, the background sync indexes it,
and the next mention is answered from the new commit (and its link names the new commit). The
interval passes on a clock the test moves on (tests/grounding/fake_clock.py), not in real time."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from bot.listeners import Answerer
from bot.live import Reload
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from bot.sync_loop import SourceSync
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from tests.bot.conftest import TEAM
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, fake_slack, mention, running_app
from tests.git_repos import Remote, git, needs_git
from tests.grounding.fake_clock import FakeClock

pytestmark = needs_git

OLD = "# Rollback\n\nRoll back when the error rate doubles within thirty minutes of a deploy.\n"
NEW = "# Rollback\n\nRoll back when the error rate triples within ninety minutes of a deploy.\n"
QUESTION = "when should I roll back a deploy?"


def _answerer(config: Config) -> Answerer:
    return make_pipeline(config, Index.load(config), ExtractiveGenerator())


def test_serve_answers_from_a_pushed_commit_after_one_sync_interval(
    tmp_path: Path, store: SQLiteAnswerStore
) -> None:
    remote = Remote(tmp_path / "upstream")
    remote.commit({"rollback.md": OLD}, "rollback", "2026-01-05")
    remote.push()
    path = tmp_path / "docbot.yml"
    path.write_text(
        f"state_dir: {tmp_path / 'state'}\nteams: [{TEAM}]\nretrieval: {{dense: false}}\n"
        "sync_interval_seconds: 60\ncollections:\n"
        f"  - name: runbooks\n    git: {remote.url}\n"
        '    url: "https://git.example.com/runbooks/blob/{commit}/{path}#L{start}-L{end}"\n'
        "answer:\n  generator: extractive\n",
        encoding="utf-8",
    )
    config = load_config(path)
    build_index(config)

    async def main() -> None:
        async with fake_slack() as slack:
            slack.set_channel(GENERAL, is_channel=True, name="general")
            reload = Reload(path, _answerer)
            clock = FakeClock()
            sync = SourceSync(reload, clock=clock, watch=False)
            syncing = asyncio.create_task(sync.run())
            try:
                async with running_app(
                    slack, config, _answerer(config), store, reload=reload
                ) as app:
                    await app.send(_ask(slack, "1.000100"))
                    (first,) = await slack.wait_for("chat.postMessage")
                    assert "doubles" in _text(first.params)
                    await asyncio.wait_for(sync.wait(lambda r: bool(r.synced)), 30)
                    head = remote.commit({"rollback.md": NEW}, "stricter rule", "2026-02-01")
                    remote.push()
                    clock.advance(60)  # the loop sleeps once it has recorded a round
                    await asyncio.wait_for(sync.wait(lambda r: r.indexed), 30)
                    await app.send(_ask(slack, "1.000200"))
                    (_, second) = await slack.wait_for("chat.postMessage", 2)
                    text = _text(second.params)
                    assert "triples" in text and "doubles" not in text
                    assert f"/blob/{head}/rollback.md" in text
                    assert head == git(remote.work, "rev-parse", "HEAD")
            finally:
                syncing.cancel()

    asyncio.run(main())


def _ask(slack: FakeSlack, ts: str) -> dict[str, Any]:
    return mention(QUESTION, channel=GENERAL, ts=ts, event_id=f"Ev{ts.replace('.', '')}",
                   bot_user_id=slack.bot_user_id)  # fmt: skip


def _text(params: dict[str, Any]) -> str:
    return f"{params.get('text', '')}\n{params.get('blocks', '')}"
