"""Dense vectors in the index: cached by text, checked like every index file, switchable."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml

from retrieval.config import Config, load_config
from retrieval.errors import ConfigError, IndexNotBuiltError
from retrieval.index import BuildReport, Index, build_index, index_root
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from tests.retrieval.docs_tree import WordCounter, public_and_secret


class RecordingEmbedder:
    """A fake model: hashed bag of words, L2-normalised; records every text it embeds."""

    dim = 32

    def __init__(self, name: str = "fake-bag-of-words") -> None:
        self.name = name
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += texts
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[row, hashlib.sha256(word.encode()).digest()[0] % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=out, where=norms > 0)


def _scope(config: Config, channel: str = "CPUB") -> Scope:
    return resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)


def _build(config: Config, embedder: RecordingEmbedder) -> BuildReport:
    return build_index(config, WordCounter(), embedder)


def _chunks(report: BuildReport) -> int:
    return sum(collection.chunks for collection in report.collections)


def test_dense_unchanged_chunks_are_never_embedded_twice(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    embedder = RecordingEmbedder()
    first = _build(config, embedder)
    assert first.embedded == len(embedder.texts) == _chunks(first)

    embedder.texts.clear()
    assert _build(config, embedder).embedded == 0
    assert embedder.texts == []

    # One section edited, one file added: only their chunks reach the model.
    handbook = tmp_path / "handbook"
    oncall = (handbook / "oncall.md").read_text().replace("PagerDuty", "Opsgenie")
    (handbook / "oncall.md").write_text(oncall)
    (handbook / "new.md").write_text("# New\n\nThe quokka runbook lives here.\n")
    report = _build(config, embedder)
    assert report.embedded == len(embedder.texts) == 2
    assert any("Opsgenie" in text for text in embedder.texts)
    assert any("quokka" in text for text in embedder.texts)
    assert not any("Rollback" in text for text in embedder.texts)


def test_dense_another_model_embeds_everything_again(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    first = _build(config, RecordingEmbedder())
    other = RecordingEmbedder("another-model")
    assert _build(config, other).embedded == len(other.texts) == _chunks(first)


def test_dense_index_load_refuses_vectors_of_another_model(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config, RecordingEmbedder())
    with pytest.raises(IndexNotBuiltError, match=r"another-model.*run `docbot index` again"):
        Index.load(config, RecordingEmbedder("another-model"))


def test_dense_search_embeds_the_question_and_fuses_scores(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config, RecordingEmbedder())
    embedder = RecordingEmbedder()
    index = Index.load(config, embedder)
    assert index.dense_model == "fake-bag-of-words"
    hits = index.search("rollback previous build", _scope(config), 3)
    assert embedder.texts == ["rollback previous build"]
    assert hits[0].chunk.heading_path == ("Deploy", "Rollback")
    assert all(0.0 <= hit.score <= 1.0 for hit in hits)


def _dense_off(config: Config) -> Config:
    return config.model_copy(
        update={"retrieval": config.retrieval.model_copy(update={"dense": False})}
    )


def test_dense_off_embeds_nothing_and_searches_with_bm25_alone(tmp_path: Path) -> None:
    config = _dense_off(public_and_secret(tmp_path))
    embedder = RecordingEmbedder()
    assert _build(config, embedder).embedded == 0
    manifest = json.loads((index_root(config) / "manifest.json").read_text())
    assert not any("vectors" in entry for entry in manifest["collections"])
    assert not (index_root(config) / "vectors").exists() or not any(
        (index_root(config) / "vectors").iterdir()
    )
    index = Index.load(config, embedder)
    assert index.dense_model is None
    hits = index.search("rollback previous build", _scope(config), 3)
    assert embedder.texts == []
    lexical, dense = index.candidates("rollback previous build", _scope(config), 3)
    assert dense is None
    assert [(h.score) for h in hits] == [score for _, score in lexical]


def test_dense_on_refuses_an_index_built_without_vectors(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(_dense_off(config), RecordingEmbedder())
    with pytest.raises(IndexNotBuiltError, match=r"no dense vectors.*dense: false"):
        Index.load(config, RecordingEmbedder())


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("harm", ["flip", "delete", "truncate"])
def test_dense_damaged_vectors_are_refused_at_load_and_repaired(harm: str, tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    first = _build(config, RecordingEmbedder())
    for path in (index_root(config) / "vectors").iterdir():
        if harm == "flip":
            _flip(path)
        elif harm == "delete":
            path.unlink()
        else:
            path.write_bytes(path.read_bytes()[:100])

    with pytest.raises(IndexNotBuiltError, match=r"vectors.*run `docbot index` again"):
        Index.load(config, RecordingEmbedder())

    embedder = RecordingEmbedder()
    repaired = _build(config, embedder)
    assert repaired.generation == first.generation
    # The damaged rows were not trusted: every chunk was embedded again.
    assert repaired.embedded == _chunks(first)
    hits = Index.load(config, RecordingEmbedder()).search(
        "payments key vault", _scope(config, "CPAY"), 1
    )
    assert hits[0].chunk.collection == "payments"
    assert _build(config, embedder).embedded == 0


def test_dense_build_removes_vectors_no_longer_named(tmp_path: Path) -> None:
    config = public_and_secret(tmp_path)
    _build(config, RecordingEmbedder())
    (tmp_path / "handbook" / "oncall.md").write_text("# On-call\n\nCall the desk.\n")
    _build(config, RecordingEmbedder())
    manifest = json.loads((index_root(config) / "manifest.json").read_text())
    named = {entry["vectors"]["file"] for entry in manifest["collections"]}
    on_disk = {f"vectors/{p.name}" for p in (index_root(config) / "vectors").iterdir()}
    assert on_disk == named


def test_dense_config_key_is_validated(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "docbot.yml"
    raw = {"teams": ["T1"], "collections": [{"name": "d", "path": "docs"}]}
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert load_config(path).retrieval.dense is True
    for value, problem in (("maybe", "must be true or false"), (None, "must be true or false")):
        path.write_text(yaml.safe_dump(raw | {"retrieval": {"dense": value}}), encoding="utf-8")
        with pytest.raises(ConfigError, match=rf"retrieval\.dense: {problem}"):
            load_config(path)
    path.write_text(yaml.safe_dump(raw | {"retrieval": {"dens": False}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"retrieval\.dens: unknown key"):
        load_config(path)
