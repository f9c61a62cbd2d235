"""Both BM25 engines report the same document frequencies, saved and reopened alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.engines import build_engine, open_engine

CORPUS = [["rotate", "key", "key"], ["deploy", "key"], ["deploy"], []]


@pytest.mark.parametrize("kind", ["bm25", "tantivy"])
def test_engine_frequencies_count_documents_holding_each_term(kind: str, tmp_path: Path) -> None:
    built = build_engine(kind, CORPUS, tmp_path)  # type: ignore[arg-type]
    for engine in (built, open_engine(tmp_path)):
        assert engine.frequencies(["key", "deploy", "rotate", "absent"]) == (4, [2, 2, 1, 0])
