"""A question's token ids without parsing the whole tokenizer: the cold search's shortcut.

Parsing wordllama's tokenizer JSON (`tokenizers.Tokenizer.from_file`, 1.8 MB: a 32k-piece
vocabulary and 61k merges) took 0.08 s of every cold `docbot search`, which tokenizes one
question. That tokenizer is a SentencePiece-style BPE with no pre-tokenizer: the text, with
"▁" prepended and every space made "▁", is split into characters (a character not in the
vocabulary becomes its UTF-8 bytes' `<0xNN>` pieces), then adjacent pieces are merged,
lowest merge rank first (leftmost on a tie), until no merge applies. `docbot index` stores
what that needs in compact tables (`compile_tables`); `QueryTokens.encode` repeats the
merging exactly as tokenizers' BPE does (a heap of (rank, position); an entry whose pair
changed is skipped), and answers None, so the caller uses the real tokenizer, for anything
the tables do not cover: a tokenizer of another shape, a text holding a special token, a
character with no piece and no byte pieces. tests/retrieval/test_query_tokens.py checks the
ids against the real tokenizer's on thousands of strings (words, code, CJK, emoji, numbers).

The tables record the sha256 of the tokenizer file they were made from, and `QueryTokens`
is only used with that very file installed.
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from retrieval.dense import model_tag
from retrieval.durable import write_atomically
from retrieval.embeddings import Embedder, StaticEmbedder, Vectors
from retrieval.errors import IndexNotBuiltError

MAGIC = b"docbot-query-tokens-1\n"
_LENGTH = struct.Struct("<Q")
_CACHED_PAIRS = 100_000
_UNSEEN = (-1, -1)  # a pair not looked up yet (no merge has a negative rank)
_SPACE = "▁"
_EXPECTED_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": _SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE},
    ],
}


class QueryTokensError(ValueError):
    """Tables that are not this docbot's, or damaged."""


def compile_tables(tokenizer_file: Path) -> bytes | None:
    """The tables for the tokenizer in `tokenizer_file`, or None if it is not of the one
    shape QueryTokens repeats exactly (then questions always go to the real tokenizer)."""
    return _tables(tokenizer_file.read_bytes())


# Kept for the last tokenizer file (a process has one installed): compiling takes ~0.15 s of
# CPU, which every build into a new state folder paid again in a process that builds several
# (the test suite's hundreds of small indexes, a benchmark's corpora). Keyed by the file's
# bytes, so an edited file is compiled afresh.
@functools.lru_cache(maxsize=1)
def _tables(source: bytes) -> bytes | None:
    spec = json.loads(source)
    model = spec.get("model") or {}
    if not (
        model.get("type") == "BPE"
        and model.get("byte_fallback") is True
        and model.get("dropout") is None
        and not model.get("continuing_subword_prefix")
        and not model.get("end_of_word_suffix")
        and not model.get("ignore_merges")
        and spec.get("pre_tokenizer") is None
        and spec.get("normalizer") == _EXPECTED_NORMALIZER
    ):
        return None
    vocab: dict[str, int] = model["vocab"]
    keys, ranks, merged = [], [], []
    for rank, merge in enumerate(model["merges"]):
        left, right = merge.split(" ") if isinstance(merge, str) else merge
        keys.append(_pair(vocab[left], vocab[right]))
        ranks.append(rank)
        merged.append(vocab[left + right])
    specials = [token["content"] for token in spec.get("added_tokens", [])]
    if len(set(keys)) != len(keys) or any(" " in t or _SPACE in t or not t for t in specials):
        return None  # a pair merged twice, or a special token the normalizer could touch
    order = np.argsort(np.asarray(keys, dtype=np.uint64), kind="stable")
    singles = sorted((piece, i) for piece, i in vocab.items() if len(piece) == 1)
    header = {
        "source_sha256": hashlib.sha256(source).hexdigest(),
        "chars": "".join(piece for piece, _ in singles),
        "specials": specials,
        "bytes": [vocab.get(f"<0x{b:02X}>", -1) for b in range(256)],
    }
    arrays = (
        np.asarray([i for _, i in singles], dtype="<u4"),
        np.asarray(keys, dtype="<u8")[order],
        np.asarray(ranks, dtype="<u4")[order],
        np.asarray(merged, dtype="<u4")[order],
    )
    encoded = json.dumps(header).encode("utf-8")
    body = b"".join((_LENGTH.pack(len(encoded)), encoded, *(a.tobytes() for a in arrays)))
    return MAGIC + body + hashlib.sha256(body).digest()


def _pair(left: int, right: int) -> int:
    return (left << 32) | right


class QueryTokens:
    """Token ids of short texts, exactly as the tokenizer the tables were made from gives them
    (special tokens not added), or None where it cannot be sure."""

    def __init__(self, data: bytes, cached_pairs: int = _CACHED_PAIRS) -> None:
        """`cached_pairs`: how many pair lookups `_merge` remembers at most."""
        if not data.startswith(MAGIC) or len(data) < len(MAGIC) + _LENGTH.size + 32:
            raise QueryTokensError("not a query tokens file of this docbot version")
        body = memoryview(data)[len(MAGIC) : len(data) - 32]
        if hashlib.sha256(body).digest() != data[-32:]:
            raise QueryTokensError("it does not match its checksum")
        (length,) = _LENGTH.unpack_from(body)
        header: dict[str, Any] = json.loads(bytes(body[_LENGTH.size : _LENGTH.size + length]))
        at = _LENGTH.size + length
        chars: str = header["chars"]
        ids = np.frombuffer(body, dtype="<u4", count=len(chars), offset=at)
        at += 4 * len(chars)
        count = (len(body) - at) // 16
        self._keys = np.frombuffer(body, dtype="<u8", count=count, offset=at)
        self._ranks = np.frombuffer(body, dtype="<u4", count=count, offset=at + 8 * count)
        self._merged = np.frombuffer(body, dtype="<u4", count=count, offset=at + 12 * count)
        if at + 16 * count != len(body):
            raise QueryTokensError("its merge table is cut short")
        self.source_sha256: str = header["source_sha256"]
        self._chars = dict(zip(chars, ids.tolist(), strict=True))
        self._bytes: list[int] = header["bytes"]
        self._specials: list[str] = header["specials"]
        self._merges: dict[tuple[int, int], tuple[int, int] | None] = {}
        self._cached_pairs = cached_pairs

    def _merge(self, left: int, right: int) -> tuple[int, int] | None:
        """(rank, merged id) of the pair, or None; looked up in the sorted table, and kept
        (at most `cached_pairs` pairs: `docbot serve` tokenizes questions for weeks)."""
        pair = (left, right)
        found = self._merges.get(pair, _UNSEEN)
        if found is _UNSEEN:
            key = np.uint64(_pair(left, right))
            at = int(np.searchsorted(self._keys, key))
            hit = at < len(self._keys) and self._keys[at] == key
            found = (int(self._ranks[at]), int(self._merged[at])) if hit else None
            if len(self._merges) >= self._cached_pairs:
                self._merges.clear()
            self._merges[pair] = found
        return found

    def encode(self, text: str) -> list[int] | None:
        if any(special in text for special in self._specials):
            return None  # split out by the tokenizer before its model runs
        if not text:
            return []  # Prepend adds nothing to an empty text
        ids = []
        for char in _SPACE + text.replace(" ", _SPACE):
            found = self._chars.get(char)
            if found is not None:
                ids.append(found)
                continue
            try:
                pieces = [self._bytes[b] for b in char.encode("utf-8")]
            except UnicodeEncodeError:  # a lone surrogate (from JSON's "\\ud800"): not text
                return None
            if min(pieces) < 0:
                return None  # an unknown piece: the tokenizer's <unk> rules, not repeated here
            ids.extend(pieces)
        return self._merged_ids(ids)

    def _merged_ids(self, ids: list[int]) -> list[int]:
        """tokenizers' BPE merge loop (models/bpe/word.rs `merge_all`, without dropout)."""
        count = len(ids)
        after = [*range(1, count), -1]
        before = list(range(-1, count - 1))
        alive = [True] * count
        queue: list[tuple[int, int, int]] = []
        for at in range(count - 1):
            merge = self._merge(ids[at], ids[at + 1])
            if merge is not None:
                queue.append((merge[0], at, merge[1]))
        heapq.heapify(queue)
        while queue:
            _, at, merged = heapq.heappop(queue)
            right = after[at]
            if not alive[at] or right == -1:
                continue
            current = self._merge(ids[at], ids[right])
            if current is None or current[1] != merged:
                continue  # the pair at `at` changed since this entry was queued
            ids[at], alive[right], after[at] = merged, False, after[right]
            if after[right] != -1:
                before[after[right]] = at
            if before[at] >= 0:
                merge = self._merge(ids[before[at]], merged)
                if merge is not None:
                    heapq.heappush(queue, (merge[0], before[at], merge[1]))
            if after[at] != -1:
                merge = self._merge(merged, ids[after[at]])
                if merge is not None:
                    heapq.heappush(queue, (merge[0], at, merge[1]))
        return [token for token, live in zip(ids, alive, strict=True) if live]


class QuestionEmbedder:
    """The model's Embedder, tokenizing each text by QueryTokens where they cover it and by
    the model's own tokenizer otherwise: the same vectors as the model's `embed`, bit for bit,
    without parsing the tokenizer for a question the tables cover."""

    def __init__(self, model: StaticEmbedder, tokens: QueryTokens) -> None:
        self._model = model
        self._tokens = tokens

    @property
    def dim(self) -> int:
        return self._model.dim

    @property
    def name(self) -> str:
        return self._model.name

    def embed(self, texts: Sequence[str]) -> Vectors:
        ids = [self._tokens.encode(text) for text in texts]
        covered = [found for found in ids if found is not None]
        if len(covered) < len(ids):
            return self._model.embed(texts)
        return self._model.embed_tokens(covered)


def _file(embedder: StaticEmbedder, source_sha256: str) -> str:
    """Named by the model and the tokenizer file's sha256, as every index file by its content:
    a build for another tokenizer file writes a new file, never over one a manifest names."""
    return f"vectors/query-tokens-{model_tag(embedder)}-{source_sha256[:16]}.bin"


def write_query_tokens(root: Path, embedder: Embedder) -> dict[str, Any] | None:
    """The manifest entry of the embedder's query tokens under `root` (kept if already there
    and made from the installed tokenizer file), or None for a model without them."""
    if not isinstance(embedder, StaticEmbedder) or embedder.tokenizer_file is None:
        return None
    source = embedder.tokenizer_file
    source_sha256 = hashlib.sha256(source.read_bytes()).hexdigest()
    file = _file(embedder, source_sha256)
    try:
        existing = (root / file).read_bytes()
        data = existing if QueryTokens(existing).source_sha256 == source_sha256 else None
    except (OSError, ValueError, KeyError, TypeError):  # absent or damaged: written again
        data = None
    if data is None:
        data = compile_tables(source)
        if data is None:
            return None
        write_atomically(root / file, data)
    return {
        "file": file,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "model": embedder.name,
    }


def question_embedder(root: Path, entry: object, embedder: Embedder, fix: str) -> Embedder:
    """`embedder` with the index's query tokens (its manifest `entry`) when they were made
    for this model from the installed tokenizer file; else `embedder` itself. A damaged file
    is refused (IndexNotBuiltError), like every index file."""
    if not (
        isinstance(entry, dict)
        and isinstance(embedder, StaticEmbedder)
        and embedder.tokenizer_file is not None
        and entry.get("model") == embedder.name
    ):
        return embedder
    path = root / str(entry["file"])
    try:
        data = path.read_bytes()
        if len(data) != entry["bytes"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise QueryTokensError("it has changed since docbot index wrote it")
        tokens = QueryTokens(data)
        installed = hashlib.sha256(embedder.tokenizer_file.read_bytes()).hexdigest()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexNotBuiltError(f"the query tokens file {path} is damaged ({exc}): {fix}") from exc
    if tokens.source_sha256 != installed:
        return embedder  # another tokenizer file is installed now: only it tells its tokens
    return QuestionEmbedder(embedder, tokens)
