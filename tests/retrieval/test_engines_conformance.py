"""Every engine against the same contract, and against rank-bm25's BM25Okapi as the reference."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from retrieval.config import SearchConfig
from retrieval.engines import (
    EngineKind,
    RankBM25Engine,
    build_engine,
    choose_engine,
    open_engine,
)
from retrieval.errors import IndexNotBuiltError
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.text import tokenize
from tests.retrieval.docs_tree import WordCounter, public_and_secret

ENGINES: tuple[EngineKind, ...] = ("bm25", "tantivy")
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"

TEXTS = (
    "Rotate the payments API key from the vault console every ninety days.",
    "Rollback a deploy with the release tool: pick the previous build and confirm.",
    "httpx.Client(follow_redirects=True) follows redirects; the default is False.",
    "Timeouts: httpx raises ReadTimeout when the server sends nothing for five seconds.",
    "The on-call rota lives in PagerDuty; swap shifts with the schedule override.",
    "Proxies are configured with the proxy argument or the HTTPS_PROXY variable.",
    "Connection pooling keeps sockets alive between requests made by one client.",
    "Database migrations run before the deploy; a failed migration blocks the release.",
    "Certificates: pass verify=False only in tests; production verifies TLS chains.",
    "The staging cluster mirrors production but with synthetic customer data.",
    "Feature flags are toggled in the admin panel and audited weekly.",
    "Kafka consumers commit offsets after processing each batch of events.",
)
DISTINCTIVE = {
    "rotate payments key vault": 0,
    "rollback previous build": 1,
    "follow_redirects": 2,
    "ReadTimeout server sends nothing": 3,
    "PagerDuty schedule override": 4,
    "HTTPS_PROXY proxy argument": 5,
    "pooling sockets alive": 6,
    "failed migration blocks": 7,
    "verify TLS certificates": 8,
    "synthetic customer data staging": 9,
    "feature flags admin panel": 10,
    "kafka offsets batch": 11,
}


def corpus() -> list[list[str]]:
    return [tokenize(text) for text in TEXTS]


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_top1_agrees_with_bm25okapi_on_distinctive_queries(kind: EngineKind) -> None:
    engine = build_engine(kind, corpus())
    reference = BM25Okapi(corpus())
    for query, expected in DISTINCTIVE.items():
        tokens = tokenize(query)
        best = int(np.argmax(reference.get_scores(tokens)))
        assert best == expected, query  # the fixture itself is distinctive
        assert engine.top_k(tokens, 3)[0][0] == expected, query


def test_rank_bm25_engine_scores_equal_get_scores_exactly() -> None:
    engine = RankBM25Engine(corpus())
    reference = BM25Okapi(corpus())
    for query in [*DISTINCTIVE, "deploy release production", "httpx client client"]:
        tokens = tokenize(query)
        expected = reference.get_scores(tokens)
        hits = engine.top_k(tokens, len(TEXTS))
        assert {pos for pos, _ in hits} == {i for i, s in enumerate(expected) if s > 0}
        for position, score in hits:
            assert score == expected[position]  # to the bit, not approximately


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_returns_best_first_and_only_positive_scores(kind: EngineKind) -> None:
    hits = build_engine(kind, corpus()).top_k(tokenize("deploy release production"), 10)
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(score > 0 for score in scores)
    assert {pos for pos, _ in hits} == {1, 7, 8, 9}


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_unknown_words_give_no_hits(kind: EngineKind) -> None:
    engine = build_engine(kind, corpus())
    assert engine.top_k(tokenize("zyzzyva quux"), 5) == []
    assert engine.top_k([], 5) == []


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_respects_k(kind: EngineKind) -> None:
    engine = build_engine(kind, corpus())
    tokens = tokenize("deploy release production httpx")
    assert len(engine.top_k(tokens, 2)) == 2
    assert len(engine.top_k(tokens, 1)) == 1
    assert engine.top_k(tokens, 0) == []


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_breaks_ties_by_position(kind: EngineKind) -> None:
    same = tokenize("shared words appear here")
    docs = [tokenize("unrelated filler text"), *[same] * 9, tokenize("other filler")]
    engine = build_engine(kind, docs)
    hits = engine.top_k(tokenize("shared words"), 4)
    assert [pos for pos, _ in hits] == [1, 2, 3, 4]
    assert len({score for _, score in hits}) == 1
    assert engine.top_k(tokenize("shared words"), 4) == hits  # deterministic


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_over_empty_documents_finds_nothing(kind: EngineKind) -> None:
    assert build_engine(kind, []).top_k(["key"], 3) == []
    assert build_engine(kind, [[], []]).top_k(["key"], 3) == []


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_persistence_round_trip(kind: EngineKind, tmp_path: Path) -> None:
    built = build_engine(kind, corpus(), tmp_path)
    reopened = open_engine(tmp_path)
    assert reopened.name == built.name == kind
    for query in DISTINCTIVE:
        tokens = tokenize(query)
        assert reopened.top_k(tokens, 5) == built.top_k(tokens, 5)


def test_open_engine_refuses_a_missing_or_foreign_folder(tmp_path: Path) -> None:
    with pytest.raises(IndexNotBuiltError, match="no readable search engine"):
        open_engine(tmp_path)
    (tmp_path / "engine.json").write_text(json.dumps({"format": 999, "engine": "bm25"}))
    with pytest.raises(IndexNotBuiltError, match="incompatible"):
        open_engine(tmp_path)


def _truncate(path: Path, size: int) -> None:
    with path.open("r+b") as handle:
        handle.truncate(size)


# Damage a persisted bm25 engine can suffer; each must be refused at open, never half-read.
BM25_DAMAGE: dict[str, Callable[[Path], object]] = {
    "truncated postings": lambda d: _truncate(d / "docs.npy", 100),
    "truncated weights": lambda d: _truncate(d / "weights.npy", 130),
    "empty terms": lambda d: (d / "terms.json").write_text("{}"),
    "terms not json": lambda d: (d / "terms.json").write_text('["rotate", '),
    "one term lost": lambda d: (d / "terms.json").write_text(
        json.dumps(json.loads((d / "terms.json").read_text())[1:])
    ),
    "missing offsets": lambda d: (d / "offsets.npy").unlink(),
    "engine.json cut": lambda d: _truncate(d / "engine.json", 10),
    "engine.json without counts": lambda d: (d / "engine.json").write_text(
        json.dumps(
            {
                "format": json.loads((d / "engine.json").read_text())["format"],
                "engine": "bm25",
                "documents": 12,
            }
        )
    ),
}


@pytest.mark.parametrize("damage", sorted(BM25_DAMAGE))
def test_open_engine_refuses_a_damaged_bm25_engine(damage: str, tmp_path: Path) -> None:
    build_engine("bm25", corpus(), tmp_path)
    BM25_DAMAGE[damage](tmp_path)
    with pytest.raises(IndexNotBuiltError, match=str(tmp_path)):
        open_engine(tmp_path)


def test_open_engine_refuses_a_damaged_tantivy_engine(tmp_path: Path) -> None:
    build_engine("tantivy", corpus(), tmp_path)
    (tmp_path / "meta.json").write_text("{}")
    with pytest.raises(IndexNotBuiltError, match=str(tmp_path)):
        open_engine(tmp_path)


def test_open_engine_refuses_a_tantivy_engine_with_another_document_count(
    tmp_path: Path,
) -> None:
    build_engine("tantivy", corpus(), tmp_path)
    meta = json.loads((tmp_path / "engine.json").read_text())
    (tmp_path / "engine.json").write_text(json.dumps(meta | {"documents": 99}))
    with pytest.raises(IndexNotBuiltError, match="99"):
        open_engine(tmp_path)


def test_choose_engine_follows_the_config_and_the_auto_threshold() -> None:
    assert choose_engine(SearchConfig(engine="bm25"), 10**6) == "bm25"
    assert choose_engine(SearchConfig(engine="tantivy"), 1) == "tantivy"
    auto = SearchConfig(engine="auto", auto_threshold=100)
    assert choose_engine(auto, 100) == "bm25"
    assert choose_engine(auto, 101) == "tantivy"


def _squad_paragraphs() -> tuple[list[str], list[str]]:
    path = SHARED / "eval" / "squad" / "dev-v1.1.json"
    if not path.exists():
        pytest.skip(f"../shared is absent: {path} holds the SQuAD paragraphs")
    data = json.loads(path.read_text(encoding="utf-8"))
    paragraphs = [p for article in data["data"][:8] for p in article["paragraphs"]]
    texts = [p["context"] for p in paragraphs]
    questions = [qa["question"] for p in paragraphs for qa in p["qas"][:2]]
    return texts, questions


def test_tantivy_top5_overlaps_bm25okapi_on_squad() -> None:
    """Lucene's BM25 variant ranks like BM25Okapi: measured overlap@5 0.958, same top-1 0.970."""
    texts, questions = _squad_paragraphs()
    docs = [tokenize(text) for text in texts]
    reference, tantivy = RankBM25Engine(docs), build_engine("tantivy", docs)
    overlaps, same_top1 = [], 0
    for question in questions:
        tokens = tokenize(question)
        expected = [pos for pos, _ in reference.top_k(tokens, 5)]
        got = [pos for pos, _ in tantivy.top_k(tokens, 5)]
        overlaps.append(len(set(expected) & set(got)) / max(1, len(expected)))
        same_top1 += bool(expected) and bool(got) and expected[0] == got[0]
    assert sum(overlaps) / len(overlaps) >= 0.92
    assert same_top1 / len(questions) >= 0.94


@pytest.mark.parametrize("kind", ENGINES)
def test_engine_scope_isolation_private_docs_leave_public_scores_identical(
    kind: EngineKind, tmp_path: Path
) -> None:
    """A private collection full of the query's words changes nothing in a public scope."""
    alone = public_and_secret(tmp_path, engine=kind, with_secret=False, state=".alone")
    both = public_and_secret(tmp_path, engine=kind, with_secret=True, state=".both")
    for config in (alone, both):
        build_index(config, WordCounter())
    public = resolve_scope(both, "T1", "CPUB", ConversationKind.CHANNEL)
    assert public.collections == ("handbook",)
    query = "rollback payments key deploy release tool"
    expected = Index.load(alone).search(query, public, 10)
    got = Index.load(both).search(query, public, 10)
    assert expected  # the query does match public documents
    assert [(h.chunk, h.score, h.rank) for h in got] == [
        (h.chunk, h.score, h.rank) for h in expected
    ]  # identical chunks and scores, to the bit
    private = resolve_scope(both, "T1", "CPAY", ConversationKind.CHANNEL)
    assert any(
        h.chunk.collection == "payments" for h in Index.load(both).search(query, private, 10)
    )


@pytest.mark.parametrize("kind", ENGINES)
@pytest.mark.parametrize("size", [1, 2, 4])
def test_engine_tiny_scope_still_finds_its_documents(kind: EngineKind, size: int) -> None:
    # BM25Okapi's idf is <= 0 for every term of a one- or two-document corpus (and exactly 0
    # for a term in half the documents): a small private collection must still be searchable.
    texts = [
        "Roll back a deploy with deployctl rollback.",
        "Rotate the payments key every ninety days.",
        "The on-call rota lives in the ops calendar.",
        "Payments reconciliation runs nightly at two.",
    ][:size]
    engine = build_engine(kind, [tokenize(text) for text in texts])
    for position, text in enumerate(texts):
        hits = engine.top_k(tokenize(text), size)
        assert hits, text
        assert hits[0][0] == position
        assert all(score > 0 for _, score in hits)
