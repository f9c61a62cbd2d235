"""Replays model answers through the composition `docbot ask` runs; what became of each claim.

The pipeline is bot.runtime.pipeline_loader's (index from disk, the real OpenAIGenerator and
`openai` client from Settings read from an environment), pointed at the fake OpenAI server on
127.0.0.1 whose replies ReplayModel computes from each prompt. Built once per run, not per
question, which is the only difference from `docbot ask` (it would reload the index each time).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchmarks.dev_questions import CORPORA, SETS
from benchmarks.model_answers.answers import ModelAnswer, ModelClaim, flat
from benchmarks.model_answers.replay import ReplayModel
from benchmarks.query_rewrite import load_items, load_rewrites
from bot.runtime import pipeline_loader
from bot.settings import Settings
from grounding.answer import Answer, AnswerStatus
from retrieval.config import Config, load_config
from retrieval.query import check_question
from retrieval.scopes import ConversationKind, resolve_scope
from tests.grounding.fake_openai import fake_in_thread

API = Literal["responses", "chat"]
APIS: tuple[API, ...] = ("responses", "chat")
MODEL = "gpt-5-mini"
TEAM = "T0REPLAY"
CHANNEL = "C0REPLAY"
Outcome = Literal["kept", "dropped", "not_replayed", "error", "unmatched"]


@dataclass(frozen=True, slots=True)
class ClaimOutcome:
    answer: ModelAnswer
    claim: ModelClaim
    outcome: Outcome
    api: str  # the generator's API (answer.api): the same answer replayed on two counts twice
    detail: str = ""  # the drop reason and detail, or the error


def replay_config(
    corpus: str,
    state: Path,
    api: API,
    include: Sequence[str] | None = None,
    *,
    dense: bool = True,
) -> Config:
    """A docbot.yml for one corpus (read in place) with the OpenAI generator on `api`.

    `include` limits the collection to those files and `dense=False` leaves out the embeddings
    (a small, quick index for tests).
    """
    folder, exclude = SETS[corpus]
    state.mkdir(parents=True, exist_ok=True)
    lines = [
        f"state_dir: {json.dumps(str(state / 'state'))}",
        f"teams: [{TEAM}]",
        "collections:",
        f"  - name: {corpus}",
        f"    path: {json.dumps(str((CORPORA / folder).resolve()))}",
        f"    exclude: {json.dumps(list(exclude))}",
    ]
    if include is not None:
        lines.append(f"    include: {json.dumps(list(include))}")
    lines += ["answer:", "  generator: openai", f"  api: {api}", f"  model: {MODEL}"]
    # The replay measures the verifier on answers to answerable questions, so every one must
    # reach the model; the gate before it is measured on its own (training/fit_gate.py), and on
    # a subset of files (`include`) its term statistics would be the subset's.
    lines += ["  gate: false"]
    lines += ["retrieval:", f"  dense: {json.dumps(dense)}"]
    path = config_file(state, api)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_config(path)


def config_file(state: Path, api: API) -> Path:
    """Where replay_config(corpus, state, api) writes its docbot.yml (for `docbot ask --config`)."""
    return state / f"docbot-{api}.yml"


def replay(config: Config, answers: Sequence[ModelAnswer]) -> list[ClaimOutcome]:
    """Each answer asked once, in order; what happened to every claim of it.

    A question not in English is rewritten first (answer.rewrite: auto) with the masked rewrite
    of benchmarks/query_rewrites: what a model that knows only the question would search for.
    """
    corpora = {a.corpus for a in answers}
    items = {i.id: i for corpus in corpora for i in load_items(corpus)}
    model = ReplayModel(rewrites=load_rewrites(mask=items))
    scope = resolve_scope(config, TEAM, CHANNEL, ConversationKind.CHANNEL)
    with fake_in_thread(model) as fake:
        settings = Settings.from_env(
            {"OPENAI_API_KEY": "sk-replay", "OPENAI_BASE_URL": fake.base_url}
        )

        async def run() -> list[Answer]:
            # Closed while this loop still runs, as `docbot ask` closes its own: the `openai`
            # client's connections end here, not when a collection finds the client.
            async with contextlib.aclosing(pipeline_loader(settings)(config)) as pipeline:
                out = []
                for answer in answers:
                    model.current = answer
                    out.append(await pipeline.answer(check_question(answer.question), scope))
            return out

        results = asyncio.run(run())
    unresolved = set(model.unresolved)
    return [
        outcome
        for answer, result in zip(answers, results, strict=True)
        for outcome in _outcomes(answer, result, unresolved, config.answer.api)
    ]


def _outcomes(
    answer: ModelAnswer, result: Answer, unresolved: set[tuple[str, str]], api: str
) -> list[ClaimOutcome]:
    kept = {flat(c.text) for c in result.claims}
    dropped = {flat(d.text): f"{d.reason}: {d.detail}" for d in result.dropped_claims}
    out = []
    for claim in answer.claims:
        text = flat(claim.text)
        if (answer.id, claim.text) in unresolved:
            out.append(
                ClaimOutcome(answer, claim, "not_replayed", api, "no evidence item holds it")
            )
        elif result.status is AnswerStatus.ERROR:
            out.append(ClaimOutcome(answer, claim, "error", api, result.error_detail))
        elif text in kept:
            out.append(ClaimOutcome(answer, claim, "kept", api))
        elif text in dropped:
            out.append(ClaimOutcome(answer, claim, "dropped", api, dropped[text]))
        else:
            out.append(ClaimOutcome(answer, claim, "unmatched", api, result.status.value))
    return out
