"""Claims are leases, end to end: a mention whose run died is answered on redelivery once its
lease lapsed, a live run stops duplicates, and a reply that was posted is never posted again,
even when its run died between posting and marking it done."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot.app import Answerer
from bot.replies import REPLY_EVENT_TYPE
from bot.store import LEASE_SECONDS, Claim, MentionKey, SQLiteAnswerStore
from retrieval.config import Config
from tests.bot.conftest import TEAM
from tests.bot.e2e import ask, run
from tests.bot.fake_slack import FakeSlack
from tests.bot.harness import GENERAL, RunningApp
from tests.bot.store.conftest import FakeClock, record

DEAD = "999:deadbeef"  # the owner that was killed


def _ask(slack: FakeSlack, ts: str) -> dict[str, object]:
    return ask(slack, "how do I roll back a deploy?", GENERAL, ts)


def _killed_while_posting(tmp_path: Path, ts: str) -> tuple[SQLiteAnswerStore, MentionKey]:
    """A store whose claim on `ts` was taken and its post begun by a run that was killed, a
    lease ago: the clock has moved past the lease."""
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    key = MentionKey(TEAM, GENERAL, ts)
    assert store.claim(key, DEAD) is Claim.NEW and store.begin_post(key, DEAD)
    clock.now += LEASE_SECONDS + 1
    return store, key


def test_leases_dead_runs_claim_is_answered_on_redelivery_after_the_lease(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    config, answerer = indexed
    clock = FakeClock()
    store = SQLiteAnswerStore(tmp_path / "s.db", clock=clock)
    key = MentionKey(TEAM, GENERAL, "40.000100")
    assert store.claim(key, DEAD) is Claim.NEW  # acknowledged, then the process was killed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        body = _ask(slack, "40.000100")
        await app.send(body, retry=1)  # Slack's immediate retry: the lease is still live
        await app.settle()
        assert slack.posted() == []
        clock.now += LEASE_SECONDS + 1  # a minute later, the dead owner never renewed
        await app.send(body, retry=2)
        await app.settle()
        assert [c.params["thread_ts"] for c in slack.posted()] == ["40.000100"]
        await app.send(body, retry=3)
        await app.settle()
        assert len(slack.posted()) == 1  # done is final

    run(config, answerer, store, scenario)
    assert store.claim(key, DEAD) is Claim.DONE
    store.close()


def test_leases_reply_stored_before_the_crash_is_not_posted_again(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    config, answerer = indexed
    # Killed after posting and storing the answer, before marking the claim done.
    store, key = _killed_while_posting(tmp_path, "41.000100")
    stored = record(reply_ts="41.000200", thread_ts="41.000100")
    store.save_answer(replace(stored, team=TEAM, channel=GENERAL))

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(_ask(slack, "41.000100"), retry=1)
        await app.settle()
        assert slack.calls_to("chat.postMessage") == []

    run(config, answerer, store, scenario)
    assert store.claim(key, "1:other") is Claim.DONE
    store.close()


def test_leases_reply_posted_but_not_stored_is_found_in_the_thread(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    """Killed between Slack's answer to chat.postMessage and the store: the reply's metadata in
    the thread says it is out."""
    config, answerer = indexed
    store, key = _killed_while_posting(tmp_path, "42.000100")

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        metadata = {"event_type": REPLY_EVENT_TYPE, "event_payload": {"question_ts": "42.000100"}}
        other = {"event_type": REPLY_EVENT_TYPE, "event_payload": {"question_ts": "42.000050"}}
        slack.messages[GENERAL] = [
            {"ts": "42.000150", "thread_ts": "42.000100", "metadata": other},
            {"ts": "42.000200", "thread_ts": "42.000100", "metadata": metadata},
        ]
        await app.send(_ask(slack, "42.000100"), retry=1)
        await app.settle()
        assert slack.calls_to("chat.postMessage") == []
        (lookup,) = slack.calls_to("conversations.replies")
        assert lookup.params["ts"] == "42.000100"

    run(config, answerer, store, scenario)
    assert store.claim(key, "1:other") is Claim.DONE
    store.close()


def test_leases_run_that_died_before_its_post_landed_is_answered(
    indexed: tuple[Config, Answerer], tmp_path: Path
) -> None:
    config, answerer = indexed
    store, _ = _killed_while_posting(tmp_path, "43.000100")

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        await app.send(_ask(slack, "43.000100"), retry=1)
        await app.settle()
        (post,) = slack.posted()
        assert post.params["metadata"]["event_payload"] == {"question_ts": "43.000100"}

    run(config, answerer, store, scenario)
    store.close()


def test_leases_failed_post_is_answered_on_redelivery(
    indexed: tuple[Config, Answerer], store: SQLiteAnswerStore
) -> None:
    """A post that failed after every retry leaves the claim open, not done."""
    config, answerer = indexed

    async def scenario(slack: FakeSlack, app: RunningApp) -> None:
        slack.fail_next("chat.postMessage", 500, count=4)  # 1 try; a look; 1 + 2 retries
        body = _ask(slack, "44.000100")
        await app.send(body)
        await app.settle()
        assert slack.posted() == []
        await app.send(body, retry=1)
        await app.settle()
        assert [c.params["thread_ts"] for c in slack.posted()] == ["44.000100"]

    run(config, answerer, store, scenario)
