"""One team check for every kind of request (bot/teams.py): events, interactions and slash
commands from a workspace docbot.yml does not serve are acknowledged and nothing else happens."""

from __future__ import annotations

from bot.app import Answerer
from bot.interactive import SHORTCUT
from bot.render.escalation import ESCALATE_ACTION
from bot.store import SQLiteAnswerStore
from retrieval.config import Config
from tests.bot import payloads
from tests.bot.e2e import run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import ASKER, DM, GENERAL, RunningApp

ELSEWHERE = "T0ELSEWHERE"


def test_app_drops_every_kind_of_request_from_an_unconfigured_team(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        command = payloads.slash_command(
            "how do I roll back a deploy?", team=ELSEWHERE, channel=GENERAL, user=ASKER,
            trigger_id="9.9.a",
        )  # fmt: skip
        assert (await app.command(command)) == (200, "")
        shortcut = payloads.message_action(
            SHORTCUT, team=ELSEWHERE, channel=GENERAL, user=ASKER, message_ts="60.000100",
            message_text="how do I roll back a deploy?", author=ASKER, trigger_id="9.9.b",
        )  # fmt: skip
        press = payloads.block_actions(ESCALATE_ACTION, "answer", team=ELSEWHERE, channel=GENERAL,
                                       user=ASKER, message_ts="60.000200")  # fmt: skip
        for payload in (shortcut, press):
            assert (await app.interact(payload))[0] == 200
        home = payloads.app_home_opened(team=ELSEWHERE, user=ASKER, channel=DM,
                                        event_id="EvHOMEX", bot_user_id="U0DOCBOT")  # fmt: skip
        assert (await app.send(home))[0] == 200
        await app.settle()
        assert [c.method for c in slack.calls if c.method != "auth.test"] == []
        assert store.recent_answers(ELSEWHERE, ASKER, 5) == ()

    run(config, answerer, store, scenario)
