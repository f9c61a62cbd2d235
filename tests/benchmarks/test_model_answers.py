"""The model-answer set is well formed; the replay model cites as a reader of the prompt would."""

from __future__ import annotations

import asyncio
import copy
import json
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from benchmarks.corpora import CORPORA
from benchmarks.model_answers.answers import (
    CORPUS_NAMES,
    STYLES,
    UNFAITHFUL,
    ModelAnswer,
    ModelClaim,
    load_answers,
    missing_quotes,
)
from benchmarks.model_answers.replay import ReplayModel, citations_for, evidence_of
from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.base import Generation, GenerationRequest
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.prompt import build_prompt
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fake_openai import FakeOpenAI, Recorded, loopback_http_client
from tests.grounding.fakes import make_chunk
from tests.grounding.openai_harness import API, APIS, QUESTION, TIMEOUT_TEXT

CLIENT_TEXT = "Use httpx.Client(timeout=10.0) to set a client-wide timeout."


def _all() -> list[ModelAnswer]:
    return [a for corpus in CORPUS_NAMES for a in load_answers(corpus)]


@pytest.mark.skipif(
    not CORPORA.is_dir(), reason=f"{CORPORA} is absent: the quotes are checked against ../shared"
)
def test_every_quote_is_verbatim_in_the_files_it_names() -> None:
    for answer in _all():
        assert not missing_quotes(answer), answer.id


def test_both_splits_hold_every_unfaithful_kind_and_faithful_answers() -> None:
    for split in ("train", "test"):
        answers = [a for a in _all() if a.split == split]
        kinds = Counter(c.kind for a in answers for c in a.claims)
        assert all(kinds[k] for k in UNFAITHFUL), (split, kinds)
        assert sum(a.faithful for a in answers) >= 10, split
    styles = Counter(c.style for a in _all() for c in a.claims if c.faithful)
    assert all(styles[s] for s in STYLES), styles


def _claim(kind: str, text: str, quote: str) -> ModelClaim:
    return ModelClaim(kind, "paraphrase" if kind == "faithful" else "", text, (quote,))


def test_citations_are_the_items_holding_the_quotes_whitespace_aside() -> None:
    evidence = evidence_of(build_prompt(_packet()).input)
    assert [e.label for e in evidence] == ["E1", "E2"]
    spread = "Timeouts  default to five\nseconds;"
    assert citations_for(_claim("faithful", "t", spread), evidence) == ["E1"]
    both = ModelClaim("faithful", "combined", "t", (CLIENT_TEXT, TIMEOUT_TEXT))
    assert citations_for(both, evidence) == ["E2", "E1"]
    assert citations_for(_claim("faithful", "t", "not in the prompt"), evidence) is None


def _packet() -> EvidencePacket:
    items = tuple(
        EvidenceItem(label, make_chunk(text, collection="httpx", path=path), 1.0)
        for label, text, path in (
            ("E1", TIMEOUT_TEXT, "advanced/timeouts.md"),
            ("E2", CLIENT_TEXT, "advanced/clients.md"),
        )
    )
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))
    return EvidencePacket(QUESTION, scope, "gen-1", PackPolicy(), items, (), 40)


ANSWER = ModelAnswer(
    id="t.f",
    corpus="httpx",
    question_id="t",
    question=QUESTION,
    files=(),
    claims=(
        _claim("faithful", "Timeouts default to five seconds.", TIMEOUT_TEXT),
        _claim("wrong_evidence", "Timeouts default to five seconds, by default.", TIMEOUT_TEXT),
        _claim("faithful", "Not retrievable.", "a sentence no item holds"),
    ),
)


@pytest.mark.parametrize("api", APIS)
def test_the_real_client_gets_the_answer_cited_from_its_own_prompt(api: API) -> None:
    model = ReplayModel(current=ANSWER)

    async def run() -> tuple[Generation, Recorded]:
        async with FakeOpenAI(respond=model) as fake:
            client = make_openai_client(
                "sk-test", fake.base_url, http_client=loopback_http_client()
            )
            packet = _packet()
            try:
                generation = await OpenAIGenerator(client, "gpt-5-mini", api=api).generate(
                    GenerationRequest(packet, build_prompt(packet))
                )
            finally:
                await client.close()
            return generation, fake.requests[0]

    generation, recorded = asyncio.run(run())
    claims = generation.response.claims
    assert [(c.text, c.citations) for c in claims] == [
        ("Timeouts default to five seconds.", ["E1"]),
        ("Timeouts default to five seconds, by default.", ["E2"]),  # another document, on purpose
    ]
    assert model.unresolved == [("t.f", "Not retrievable.")]
    assert [c.quotes for c in claims] == [[TIMEOUT_TEXT], [TIMEOUT_TEXT]]
    # A schema whose claims have no `quotes` (a server from before them) gets none.
    body = copy.deepcopy(recorded.body)
    del _claim_schema(body)["properties"]["quotes"]
    reply = json.loads(model(Recorded(api, body, {})).text)
    assert all("quotes" not in c for c in reply["claims"])


def test_a_prompt_for_another_question_is_refused_loudly() -> None:
    model = ReplayModel(current=replace(ANSWER, question="something else"))
    packet = _packet()
    body = {"messages": [{"role": "user", "content": build_prompt(packet).input}]}
    assert model(Recorded("chat", body, {})).status == 400


def _claim_schema(body: dict[str, Any]) -> dict[str, Any]:
    schema = (
        body["text"]["format"]["schema"]
        if "text" in body
        else body["response_format"]["json_schema"]["schema"]
    )
    found: dict[str, Any] = next(
        d for d in schema["$defs"].values() if "citations" in d.get("properties", {})
    )
    return found


def test_a_rewrite_request_gets_the_rewrite_written_for_the_current_question() -> None:
    model = ReplayModel(current=ANSWER, rewrites={"t": ("default timeout",)})
    body = {
        "messages": [{"role": "user", "content": "Question: ¿timeout?\n"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "search_queries"}},
    }
    assert json.loads(model(Recorded("chat", body, {})).text) == {"queries": ["default timeout"]}
    other = ReplayModel(current=replace(ANSWER, question_id="u"), rewrites=model.rewrites)
    assert json.loads(other(Recorded("chat", body, {})).text) == {"queries": []}
