"""The query tokens file (retrieval/query_tokens.py) is named by its content, like every index
file: tables made from another tokenizer file never overwrite the ones a manifest names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from retrieval.embeddings import LazyTokenizer, StaticEmbedder, load_embedder
from retrieval.index import Index, build_index, index_root
from retrieval.scopes import ConversationKind, resolve_scope
from tests.retrieval.docs_tree import WordCounter
from tests.retrieval.test_scoped_load import three_collections


def _entry(root: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((root / "manifest.json").read_text("utf-8"))
    return dict(found["query_tokens"])


def test_another_tokenizer_file_gets_a_file_of_its_own(tmp_path: Path) -> None:
    config = three_collections(tmp_path)  # built with wordllama's model and tokenizer file
    root, model = index_root(config), load_embedder()
    assert model.tokenizer_file is not None
    before = _entry(root)
    written = (root / before["file"]).read_bytes()
    copy = tmp_path / "tokenizer.json"  # the same tokenizer in other bytes
    copy.write_text(json.dumps(json.loads(model.tokenizer_file.read_text("utf-8"))), "utf-8")
    other = StaticEmbedder(model._table, LazyTokenizer(copy), model.name, tokenizer_file=copy)

    build_index(config, WordCounter(), other)
    after = _entry(root)
    assert after["file"] != before["file"] and after["sha256"] != before["sha256"]
    assert not (root / before["file"]).exists()  # collected: no manifest names it now
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    assert Index.load(config, collections=scope.collections, embedder=other).search(
        "payments key", scope, 3
    )

    build_index(config, WordCounter())
    assert _entry(root) == before
    assert (root / before["file"]).read_bytes() == written
