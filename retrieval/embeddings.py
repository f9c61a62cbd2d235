"""Offline static embeddings: the one owner of turning text into dense vectors.

The model is wordllama's 256-dimension `l2_supercat` table, shipped inside the wordllama wheel
(weights and tokenizer): a text's vector is the L2-normalised sum of its tokens' rows. Nothing
is downloaded, ever: `load_embedder` reads the two files from the installed package's folder
(with safetensors and tokenizers, wordllama's own dependencies), and fails with a DocbotError if
they are not there.

Nothing is padded: wordllama's own `embed` pads every batch to its longest member (one
4,925-token chunk in a batch of 64 took 323 MB). Here each text is tokenized on its own length
and its rows are gathered and summed at most `piece_tokens` at a time, so memory is bounded
whatever the texts' lengths (a few MB), and each text's vector depends on that text alone,
never on what else was in its batch. (Gathering per text is also ~15x faster than one
`np.add.reduceat` over a batch: the rows of one text stay in cache.)
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import numpy.typing as npt
import safetensors

if TYPE_CHECKING:
    import tokenizers

from retrieval.errors import DocbotError

Vectors = npt.NDArray[np.float32]

_CONFIG = "l2_supercat"
_DIM = 256
# Bump when the pooling below changes what vector a text gets: the index then re-embeds.
_POOLING_VERSION = "1"
# Rows gathered at once for one text: piece x dim x 4 bytes (4 MB here).
PIECE_TOKENS = 4_096
# Texts embedded at once from which a float16 table is first widened whole (see __init__).
_WIDEN_AT = 16
# Texts tokenized at once: bounds the tokenizer's per-token bookkeeping.
_TOKENIZE_TEXTS = 512
# Words whose BPE pieces the tokenizer remembers. Its default cache grew by ~150 MB while
# embedding 30k chunks of a 30k-word vocabulary and kept it for the rest of the build (a third
# of what `docbot index` went over 1 GB by at 300k chunks); 1,000 words cost ~4 MB and
# tokenized no slower (docs/performance-loading.md, "Cold search and build memory").
_BPE_CACHE_WORDS = 1_000


class Embedder(Protocol):
    """Text to vectors: float32 rows, L2-normalised, shape (len(texts), dim), deterministic.

    `name` identifies the model and pooling; the index records it, so vectors made by another
    model are never mixed with this one's.
    """

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


class Tokenizer(Protocol):
    """What StaticEmbedder needs of a `tokenizers.Tokenizer` (with padding off)."""

    def encode_batch_fast(
        self, input: list[str], *, add_special_tokens: bool = ...
    ) -> list[Any]: ...


class StaticEmbedder:
    """Sum-pooled rows of a token embedding table, L2-normalised.

    A text with no tokens (the empty one) gets the zero vector: similar to nothing.
    Safe to share by threads: embedding reads the table and writes no shared state.
    """

    def __init__(
        self,
        table: npt.NDArray[np.float32] | npt.NDArray[np.float16],
        tokenizer: Tokenizer,
        name: str,
        piece_tokens: int = PIECE_TOKENS,
        tokenizer_file: Path | None = None,
    ) -> None:
        """`tokenizer_file`: the file `tokenizer` was read from, if any (retrieval/query_tokens.py
        compiles a question's shortcut from it)."""
        if table.ndim != 2 or table.shape[0] == 0:
            raise ValueError(f"an embedding table must be 2-D and non-empty, not {table.shape}")
        if piece_tokens < 1:
            raise ValueError(f"piece_tokens must be at least 1, not {piece_tokens}")
        # A float16 table (wordllama's own) is widened to float32 only when many texts are
        # embedded (a build): widening all 32k rows was 0.05 s of every cold `docbot search`,
        # which embeds one question; its rows are widened as gathered. Widening is exact, so a
        # text's vector is the same either way, bit for bit.
        self._table: npt.NDArray[np.float32] | npt.NDArray[np.float16]
        self._wide: npt.NDArray[np.float32] | None = None
        if table.dtype == np.float16:
            self._table = np.ascontiguousarray(table, dtype=np.float16)
        else:
            self._table = self._wide = np.ascontiguousarray(table, dtype=np.float32)
        self._tokenizer = tokenizer
        self._name = name
        self._piece_tokens = piece_tokens
        self.tokenizer_file = tokenizer_file

    @property
    def dim(self) -> int:
        return int(self._table.shape[1])

    @property
    def name(self) -> str:
        return self._name

    def embed(self, texts: Sequence[str]) -> Vectors:
        table = self._table if len(texts) < _WIDEN_AT else self._wide_table()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), _TOKENIZE_TEXTS):
            group = list(texts[start : start + _TOKENIZE_TEXTS])
            encodings = self._tokenizer.encode_batch_fast(group, add_special_tokens=False)
            for offset, encoding in enumerate(encodings):
                out[start + offset] = self._pool(table, np.asarray(encoding.ids, dtype=np.int64))
        return _normalised(out)

    def embed_tokens(self, texts: Sequence[Sequence[int]]) -> Vectors:
        """The vectors of texts given as their token ids (as this model's tokenizer gives
        them, special tokens not added): for the same ids, exactly what `embed` returns."""
        table = self._table if len(texts) < _WIDEN_AT else self._wide_table()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, ids in enumerate(texts):
            out[row] = self._pool(table, np.asarray(ids, dtype=np.int64))
        return _normalised(out)

    def pieces(self, words: Sequence[str]) -> list[int]:
        """How many tokenizer pieces each word takes: a common word is one piece of the
        vocabulary, a rare name (`kubernetes`, `gevent`) several."""
        encodings = self._tokenizer.encode_batch_fast(list(words), add_special_tokens=False)
        return [len(encoding.ids) for encoding in encodings]

    def _wide_table(self) -> npt.NDArray[np.float32]:
        """The table as float32, widened on first use (threads racing here build equal
        copies; the last one stays)."""
        if self._wide is None:
            self._wide = self._table.astype(np.float32)
        return self._wide

    def _pool(
        self,
        table: npt.NDArray[np.float32] | npt.NDArray[np.float16],
        ids: npt.NDArray[np.int64],
    ) -> Vectors:
        """The sum of the rows of `ids`, gathered at most `piece_tokens` rows at a time."""
        # Ids past the table (added tokens) clamp to its last row, as wordllama does.
        np.clip(ids, 0, table.shape[0] - 1, out=ids)
        total = np.zeros(self.dim, dtype=np.float32)
        for start in range(0, len(ids), self._piece_tokens):
            rows = table[ids[start : start + self._piece_tokens]]
            total += rows.astype(np.float32, copy=False).sum(axis=0)
        return total


def _normalised(out: Vectors) -> Vectors:
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, norms, out=out, where=norms > 0)
    return out


class LazyTokenizer:
    """wordllama's tokenizer, read from its file when first used: parsing it is 0.08 s, and a
    cold `docbot search` whose question the index's query tokens cover never needs it.
    Safe to share by threads (one of them reads the file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._loaded: tokenizers.Tokenizer | None = None
        self._lock = threading.Lock()

    def loaded(self) -> tokenizers.Tokenizer:
        with self._lock:
            if self._loaded is None:
                self._loaded = _read_tokenizer(self.path)
            return self._loaded

    def encode_batch_fast(self, input: list[str], *, add_special_tokens: bool = True) -> list[Any]:
        return self.loaded().encode_batch_fast(input, add_special_tokens=add_special_tokens)


def _read_tokenizer(path: Path) -> tokenizers.Tokenizer:
    import tokenizers

    try:
        tokenizer = tokenizers.Tokenizer.from_file(str(path))
    except (OSError, ValueError, RuntimeError) as exc:
        raise _unloadable(path.parent.parent, exc) from exc
    tokenizer.no_padding()  # pooling never pads
    tokenizer.no_truncation()  # a long text is embedded whole, in pieces (see _pool)
    # Private in tokenizers' bindings (0.20+), hence looked up: without it, only memory differs.
    resize_cache = getattr(tokenizer.model, "_resize_cache", None)
    if resize_cache is not None:
        resize_cache(_BPE_CACHE_WORDS)
    return tokenizer


def _unloadable(folder: Path, exc: Exception) -> DocbotError:
    return DocbotError(
        f"cannot load the offline embedding model from {folder} ({exc}): reinstall docbot's "
        "dependencies (pip install -e .), or set `retrieval: {dense: false}` in docbot.yml "
        "to search with BM25 alone"
    )


@functools.cache
def load_embedder() -> StaticEmbedder:
    """wordllama's 256-dimension model from its own wheel, without network; DocbotError if not.

    The table and the tokenizer are read straight from the files the wheel ships (as
    wordllama's own `WordLlama.load` reads them, then sets no padding and no truncation; the
    tokenizer when first used, see LazyTokenizer):
    importing wordllama itself costs ~0.2 s (it imports requests and its training code), a
    third of a cold `docbot search`. Loaded once per process (a failure is not remembered):
    the model is read-only and safe to share by threads, and every index build and load,
    and every reload of `docbot serve`, would otherwise pay again."""
    folder = _wordllama_folder()
    weights = folder / "weights" / f"{_CONFIG}_{_DIM}.safetensors"
    tokenizer_file = folder / "tokenizers" / f"{_CONFIG}_tokenizer_config.json"
    try:
        with safetensors.safe_open(str(weights), framework="np") as tensors:
            table = tensors.get_tensor("embedding.weight")
        if not tokenizer_file.is_file():  # read when first needed (LazyTokenizer)
            raise FileNotFoundError(f"no {tokenizer_file}")
    except (OSError, ValueError, RuntimeError, safetensors.SafetensorError) as exc:
        raise _unloadable(folder, exc) from exc
    version = importlib.metadata.version("wordllama")
    name = f"wordllama-{_CONFIG}-{_DIM}@{version}/sum-pool-{_POOLING_VERSION}"
    return StaticEmbedder(table, LazyTokenizer(tokenizer_file), name, tokenizer_file=tokenizer_file)


def _wordllama_folder() -> Path:
    """The installed wordllama package's folder, found without importing it."""
    try:
        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        spec = None
    if spec is None or spec.origin is None:
        raise DocbotError(
            "the offline embedding model is not installed (no wordllama package): pip install "
            "-e . installs wordllama, or set `retrieval: {dense: false}` in docbot.yml to search "
            "with BM25 alone"
        )
    return Path(spec.origin).parent
