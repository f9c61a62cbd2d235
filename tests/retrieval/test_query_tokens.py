"""retrieval/query_tokens.py: a question's token ids from the index's compact tables are the
installed tokenizer's own, so its vector is the one the full tokenizer gives, bit for bit."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from retrieval.embeddings import LazyTokenizer, StaticEmbedder, load_embedder
from retrieval.index import Index, build_index, index_root
from retrieval.query_tokens import (
    QueryTokens,
    QueryTokensError,
    QuestionEmbedder,
    compile_tables,
)
from retrieval.scopes import ConversationKind, resolve_scope
from tests.fresh_process import fresh_process_prints
from tests.retrieval.test_scoped_load import three_collections

ROOT = Path(__file__).resolve().parents[2]
FIXED = [
    "",
    " ",
    "   ",
    "a",
    "▁already marked",
    "  leading and trailing  ",
    "What port does runserver listen on?",
    "asyncio.run(main()) raises RuntimeError: no running event loop",
    "pydantic_core.ValidationError in tokenizer_config.json (line 12, column 3)",
    "retry_backoff_seconds = 0.25 * 2 ** attempt; 12,000 requests/s; 3.14159; 1e-9; 0x1F",
    "héllo wörld — naïve café, Straße, ÆØÅ",
    "你好，世界。数据库迁移怎么回滚？ 日本語のテキスト、한국어 텍스트",
    "🚀 deploy 👩‍👩‍👧‍👦 family 🇸🇪 flag ✅ done",
    "مرحبا بالعالم · Привет мир · Γειά σου",
    "tabs\tand\nnew\r\nlines",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ∮ E⋅da = Q, n → ∞",
    "x" * 400,
    "kubectl rollout undo deployment/payments --to-revision=3",
]


@functools.cache
def _strings() -> tuple[str, ...]:
    """Fixed hard cases, then seeded phrases of the manual's own words and random characters
    (made once: the same seeded strings for every test that reads them)."""
    rng = random.Random(11)
    words = [w for doc in sorted((ROOT / "docs").glob("*.md")) for w in doc.read_text().split()]
    phrases = [" ".join(rng.choices(words, k=rng.randint(1, 12))) for _ in range(2500)]
    # Control characters too, and the tag characters of flags, past the planes in use.
    points = (*range(0x30000), *range(0xE0000, 0xE0080), 0xF0000, 0x10FFFF)
    chars = [chr(c) for c in points if not 0xD800 <= c < 0xE000]  # not a lone surrogate
    odd = ["".join(rng.choices(chars, k=rng.randint(1, 6))) for _ in range(800)]
    return (*FIXED, *phrases, *odd)


@pytest.fixture(scope="module")
def model() -> StaticEmbedder:
    return load_embedder()


@pytest.fixture(scope="module")
def tokens(model: StaticEmbedder) -> QueryTokens:
    assert model.tokenizer_file is not None
    data = compile_tables(model.tokenizer_file)
    assert data is not None  # wordllama's tokenizer is of the shape the tables repeat
    return QueryTokens(data, "the tables", "fix")


def _real(model: StaticEmbedder) -> Any:
    tokenizer = model._tokenizer
    assert isinstance(tokenizer, LazyTokenizer)
    return tokenizer.loaded()


def test_the_tables_give_the_tokenizers_own_ids(model: StaticEmbedder, tokens: QueryTokens) -> None:
    real, covered = _real(model), 0
    for text in _strings():
        found = tokens.encode(text)
        if found is not None:
            covered += 1
            assert found == real.encode(text, add_special_tokens=False).ids, repr(text)
    assert covered == len(_strings())  # every byte has its piece: nothing falls to <unk>


def test_special_tokens_in_a_text_go_to_the_real_tokenizer(tokens: QueryTokens) -> None:
    for text in ("<s>", "before </s> after", "an <unk> here"):
        assert tokens.encode(text) is None


def test_a_lone_surrogate_goes_to_the_real_tokenizer(tokens: QueryTokens) -> None:
    # A JSON string may hold "\\ud800"; it has no UTF-8 bytes, so no pieces to repeat.
    assert tokens.encode("a\ud800b") is None


def test_the_remembered_pair_lookups_stay_under_the_cap_and_ids_do_not_change(
    model: StaticEmbedder, tokens: QueryTokens
) -> None:
    assert model.tokenizer_file is not None
    data = compile_tables(model.tokenizer_file)
    assert data is not None
    capped = QueryTokens(data, "the tables", "fix", cached_pairs=50)
    for text in _strings()[:400]:
        assert capped.encode(text) == tokens.encode(text), repr(text)
        assert len(capped._merges) <= 50
    assert len(tokens._merges) > 50  # the texts looked up more pairs than the cap


def test_a_question_gets_the_full_tokenizers_vector(
    model: StaticEmbedder, tokens: QueryTokens
) -> None:
    question = QuestionEmbedder(model, tokens)
    texts = [*FIXED, "an <unk> here"]  # the last one is not covered: the model's own path
    assert (question.name, question.dim) == (model.name, model.dim)
    assert np.array_equal(question.embed(texts), model.embed(texts))
    for text in texts:
        assert np.array_equal(question.embed([text]), model.embed([text]))


def test_a_tokenizer_of_another_shape_gets_no_tables(model: StaticEmbedder, tmp_path: Path) -> None:
    assert model.tokenizer_file is not None
    spec = json.loads(model.tokenizer_file.read_text("utf-8"))
    for change in (
        {"pre_tokenizer": {"type": "Whitespace"}},
        {"normalizer": None},
        {"model": {**spec["model"], "byte_fallback": False}},
    ):
        other = tmp_path / "tokenizer.json"
        other.write_text(json.dumps({**spec, **change}), "utf-8")
        assert compile_tables(other) is None


def test_damaged_tables_are_refused(model: StaticEmbedder) -> None:
    assert model.tokenizer_file is not None
    data = compile_tables(model.tokenizer_file)
    assert data is not None
    flipped = bytearray(data)
    flipped[len(data) // 2] ^= 0x01
    with pytest.raises(
        QueryTokensError, match=r"the tables is damaged \(table 1 .*checksum\): fix"
    ):
        QueryTokens(bytes(flipped), "the tables", "fix")
    with pytest.raises(QueryTokensError, match="the tables was written by an incompatible docbot"):
        QueryTokens(b"{}", "the tables", "fix")


def _manifest(root: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((root / "manifest.json").read_text("utf-8"))
    return found


def test_the_index_keeps_them_and_a_build_rewrites_them_damaged(tmp_path: Path) -> None:
    config = three_collections(tmp_path)  # built with wordllama's model
    root = index_root(config)
    entry = _manifest(root)["query_tokens"]
    path = root / entry["file"]
    assert path.is_file() and path.stat().st_size == entry["bytes"]
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    assert Index.load(config, collections=scope.collections).search("payments key", scope, 3)
    data = path.read_bytes()
    path.write_bytes(data[:-1] + bytes([data[-1] ^ 0x01]))
    for collections in (scope.collections, None):  # passed over with a warning: a cache
        assert Index.load(config, collections=collections).search("payments key", scope, 3)
    build_index(config)  # rewritten, not kept
    assert path.read_bytes() == data
    assert _manifest(root)["query_tokens"] == entry


def test_a_cold_search_never_parses_the_tokenizer(tmp_path: Path) -> None:
    three_collections(tmp_path)
    path = tmp_path / "docbot-docbot.yml"
    probe = (
        "import sys\n"
        "from retrieval.config import load_config\n"
        "from retrieval.embeddings import load_embedder\n"
        "from retrieval.index import Index\n"
        "from retrieval.scopes import ConversationKind, resolve_scope\n"
        f"config = load_config(__import__('pathlib').Path({str(path)!r}))\n"
        "scope = resolve_scope(config, 'T1', 'CA', ConversationKind.CHANNEL)\n"
        "index = Index.load(config, collections=scope.collections)\n"
        "hits = index.search('payments key', scope, 3)\n"
        "parsed = load_embedder()._tokenizer._loaded is not None\n"
        "print(len(hits), parsed, 'tokenizers' in sys.modules)\n"
    )
    out = fresh_process_prints(probe).split()
    assert out == ["3", "False", "False"]
