"""retrieval/embeddings.py: wordllama's model loads offline and pools without padding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from retrieval.embeddings import StaticEmbedder, load_embedder

ROOT = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: every socket call fails the run, HOME is empty (no
# ~/.cache/wordllama to hide a missing file) and the proxies point at a closed port.
_NO_NETWORK = textwrap.dedent(
    """
    import json, logging, sys
    opened = []
    # urllib3 (imported by wordllama) probes IPv6 by binding a socket to ::1 on import: local,
    # allowed. Reaching any other address, or resolving a name, fails the run.
    REACH = {"socket.connect", "socket.sendto", "socket.sendmsg", "socket.getaddrinfo",
             "socket.gethostbyname", "socket.gethostbyname_ex", "urllib.Request"}
    def audit(event, args):
        if event in REACH:
            opened.append(event)
            raise RuntimeError(f"network use: {event} {args!r}")
    sys.addaudithook(audit)
    from retrieval.errors import DocbotError
    from retrieval.embeddings import load_embedder
    try:
        embedder = load_embedder()
    except DocbotError as exc:
        print(json.dumps({"error": str(exc), "opened": opened}))
        sys.exit(0)
    vector = embedder.embed(["the development server runs on port 8000"])[0]
    print(json.dumps({
        "name": embedder.name, "dim": embedder.dim, "norm": float((vector ** 2).sum()),
        "opened": opened, "root_handlers": len(logging.getLogger().handlers),
        "imported_wordllama": "wordllama" in sys.modules,
    }))
    """
)


def _offline_run(tmp_path: Path, python_path: list[Path]) -> dict[str, Any]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    closed = "http://127.0.0.1:9"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "PYTHONPATH": os.pathsep.join(str(p) for p in python_path),
        "HTTP_PROXY": closed,
        "HTTPS_PROXY": closed,
        "ALL_PROXY": closed,
        "HF_HUB_OFFLINE": "0",
    }
    done = subprocess.run(
        [sys.executable, "-c", _NO_NETWORK],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_embeddings_load_from_the_wheel_without_network(tmp_path: Path) -> None:
    result = _offline_run(tmp_path, [ROOT])
    assert result["opened"] == []
    assert result["dim"] == 256
    assert result["name"].startswith("wordllama-l2_supercat-256@")
    assert result["norm"] == pytest.approx(1.0, abs=1e-5)
    # Not even imported (~0.2 s of a cold search): so its import-time
    # logging.basicConfig(level=INFO) never touches docbot's logging either.
    assert not result["imported_wordllama"]
    assert result["root_handlers"] == 0


def test_embeddings_missing_model_files_are_a_docbot_error_not_a_download(tmp_path: Path) -> None:
    import wordllama

    # The real wordllama package, without the weights its wheel ships.
    copy = tmp_path / "site"
    shutil.copytree(
        Path(wordllama.__file__).parent,
        copy / "wordllama",
        ignore=shutil.ignore_patterns("*.safetensors", "__pycache__"),
    )
    result = _offline_run(tmp_path, [copy, ROOT])
    assert result["opened"] == []
    assert "cannot load the offline embedding model" in result["error"]
    assert "dense: false" in result["error"]


@pytest.fixture(scope="module")
def embedder() -> StaticEmbedder:
    return load_embedder()


TEXTS = [
    "What port does runserver listen on?",
    "The development server runs on port 8000 by default.",
    "Bananas are a yellow fruit.",
    "héllo wörld 你好 — naïve café",
]


def test_embeddings_rows_are_float32_unit_vectors(embedder: StaticEmbedder) -> None:
    vectors = embedder.embed(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.embed([]).shape == (0, 256)


def test_embeddings_text_without_tokens_is_the_zero_vector(embedder: StaticEmbedder) -> None:
    vectors = embedder.embed(["", TEXTS[0]])
    assert not vectors[0].any()
    assert np.linalg.norm(vectors[1]) == pytest.approx(1.0, abs=1e-5)


def test_embeddings_similar_texts_are_closer(embedder: StaticEmbedder) -> None:
    question, answer, unrelated = embedder.embed(TEXTS[:3])
    assert question @ answer > question @ unrelated


def test_embeddings_equal_wordllamas_own_masked_mean(embedder: StaticEmbedder) -> None:
    """Pooling without padding gives wordllama's vectors (its embed pads and masks)."""
    import wordllama

    reference = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )
    long = " ".join(TEXTS * 200)  # thousands of tokens beside short texts: padding in theirs
    texts = [*TEXTS, long]
    theirs = reference.embed(texts, norm=True)
    assert np.abs(embedder.embed(texts) - theirs).max() < 1e-5


def test_embeddings_are_wordllamas_own_table_tokenizer_and_version(
    embedder: StaticEmbedder,
) -> None:
    """Read from the wheel's files directly, the model is the one wordllama's loader makes."""
    import wordllama

    reference = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )
    assert np.array_equal(embedder._table, reference.embedding)
    text = " ".join(TEXTS * 50)
    reference.tokenizer.no_padding()
    ids = reference.tokenizer.encode_batch_fast([text], add_special_tokens=False)[0].ids
    assert embedder._tokenizer.encode_batch_fast([text], add_special_tokens=False)[0].ids == ids
    assert f"@{wordllama.__version__}/" in embedder.name


def test_embeddings_a_text_gets_the_same_vector_in_any_batch(embedder: StaticEmbedder) -> None:
    together = embedder.embed([*TEXTS, *TEXTS[::-1]])
    for i, text in enumerate(TEXTS):
        alone = embedder.embed([text])[0]
        assert np.array_equal(together[i], alone)
        assert np.array_equal(together[len(TEXTS) * 2 - 1 - i], alone)


class _WordTokenizer:
    """A fake tokenizer: token id = word length, so sums are easy to check by hand."""

    class _Encoding:
        def __init__(self, ids: list[int]) -> None:
            self.ids = ids

    def encode_batch_fast(self, input: list[str], add_special_tokens: bool = True) -> list[Any]:
        assert not add_special_tokens
        return [self._Encoding([len(word) for word in text.split()]) for text in input]


def test_embeddings_long_text_is_summed_in_pieces() -> None:
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    words = ["a", "bb", "ccc", "dddddddddddd"] * 251  # id 12 clamps to the last row
    whole = StaticEmbedder(table, _WordTokenizer(), "fake", piece_tokens=10_000)
    pieces = StaticEmbedder(table, _WordTokenizer(), "fake", piece_tokens=7)
    expected = 251 * (table[1] + table[2] + table[3] + table[9])
    expected = expected / np.linalg.norm(expected)
    text = " ".join(words)
    assert np.allclose(whole.embed([text])[0], expected, atol=1e-6)
    assert np.allclose(pieces.embed([text])[0], expected, atol=1e-6)


def test_embeddings_memory_does_not_grow_with_the_longest_text(embedder: StaticEmbedder) -> None:
    """One ~20k-token text among 63 short ones: padded pooling would need 64 x 20k x 1 KB."""
    texts = [" ".join(TEXTS * 1000), *(TEXTS[i % 4] for i in range(63))]
    embedder.embed(texts[1:])  # the model's float32 table, widened once for many texts, is not this
    tracemalloc.start()
    try:
        embedder.embed(texts)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * 2**20
