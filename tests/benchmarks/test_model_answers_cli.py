"""The replay's pipeline is `docbot ask`'s: one model answer through the CLI ends the same way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.dev_questions import CORPORA
from benchmarks.model_answers.answers import load_answers
from benchmarks.model_answers.replay import ReplayModel
from benchmarks.model_answers.run import API, APIS, CHANNEL, config_file, replay, replay_config
from bot.cli import main
from retrieval.index import build_index
from tests.grounding.fake_openai import fake_in_thread


@pytest.mark.parametrize("api", APIS)
def test_docbot_ask_keeps_and_drops_what_the_replay_does(
    api: API, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not CORPORA.is_dir():
        pytest.skip(f"../shared is absent: no corpora at {CORPORA}")
    answers = {a.id: a for a in load_answers("httpx")}
    chosen = [answers["hx16.f"], answers["hx16.u"]]  # async.md: one small file
    config = replay_config("httpx", tmp_path, api, include=["async.md"], dense=False)
    build_index(config)
    replayed = replay(config, chosen)
    for answer in chosen:
        model = ReplayModel(current=answer)
        with fake_in_thread(model) as fake:
            monkeypatch.setenv("OPENAI_API_KEY", "sk-replay")
            monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
            argv = ["ask", answer.question, "--channel", CHANNEL, "--json"]
            assert main([*argv, "--config", str(config_file(tmp_path, api))]) == 0
        printed = json.loads(capsys.readouterr().out)
        kept = {c["text"] for c in printed["claims"]}
        dropped = {d["text"] for d in printed["dropped_claims"]}
        mine = [o for o in replayed if o.answer.id == answer.id]
        assert {o.claim.text for o in mine if o.outcome == "kept"} == kept, answer.id
        assert {o.claim.text for o in mine if o.outcome == "dropped"} == dropped, answer.id
        assert kept | dropped, "the answer reached the verifier"
