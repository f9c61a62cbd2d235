"""The embedder keeps wordllama's float16 table as shipped (widening it whole cost a cold search
0.05 s): one question's rows are widened as gathered, and the table is widened whole only for a
build's many texts. Either way every vector is the one a float32 table gives, bit for bit."""

from __future__ import annotations

import numpy as np

from retrieval.embeddings import StaticEmbedder, load_embedder

TEXTS = [
    "",
    "What port does runserver listen on?",
    "héllo wörld 你好 — naïve café 🚀",
    "asyncio.run(main()) raises RuntimeError: no running event loop",
    "retry_backoff_seconds = 0.25 * 2 ** attempt, 12,000 requests/s",
    " ".join(["kubernetes gevent pydantic_core tokenizer_config.json"] * 300),
]


def test_the_loaded_table_stays_float16_for_one_question() -> None:
    embedder = StaticEmbedder(load_embedder()._table, load_embedder()._tokenizer, "fresh")
    embedder.embed(["one question"])
    assert embedder._table.dtype == np.float16
    assert embedder._wide is None  # not widened for it


def test_vectors_equal_a_float32_tables_bit_for_bit() -> None:
    half = load_embedder()
    for piece_tokens in (4_096, 7):  # long texts are summed in pieces: each piece widened
        wide = StaticEmbedder(
            half._table.astype(np.float32), half._tokenizer, half.name, piece_tokens=piece_tokens
        )
        short = StaticEmbedder(half._table, half._tokenizer, half.name, piece_tokens=piece_tokens)
        expected = wide.embed(TEXTS)
        one_by_one = np.stack([short.embed([text])[0] for text in TEXTS])
        assert np.array_equal(one_by_one, expected)
        many = short.embed(TEXTS * 3)  # enough texts to widen the table whole
        assert short._wide is not None
        assert np.array_equal(many, np.concatenate([expected] * 3))
