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
is only used with that very file installed. The file is one of retrieval/record_file.py's
container:

    MAGIC | header length, characters, merges (3 x u64) | header | offsets (5 x u64)
          | checksums (4 x u32) | sha256 of everything before it | 4 tables

The header is JSON (the tokenizer file's sha256, the single-character pieces, the special
tokens, the byte pieces' ids); the tables are the single characters' ids (u32), then the
merges sorted by pair: their pairs (u64), ranks (u32) and merged ids (u32).
"""

from __future__ import annotations

import functools
import hashlib
import heapq
import io
import json
import logging
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from retrieval import record_file
from retrieval.dense import model_tag
from retrieval.durable import write_atomically
from retrieval.embeddings import Embedder, StaticEmbedder, Vectors
from retrieval.record_file import CRC32, Layout, RecordFile, RecordFileError, Shape

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

log = logging.getLogger("docbot.index")

_CACHED_PAIRS = 100_000
_REWRITTEN = "`docbot index` writes it again"
_UNSEEN = (-1, -1)  # a pair not looked up yet (no merge has a negative rank)
_SPACE = "▁"
_EXPECTED_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": _SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": _SPACE},
    ],
}


class QueryTokensError(RecordFileError):
    """Tables that are not this docbot's, or damaged."""


def _shape(fields: tuple[int, ...]) -> Shape:
    header_length, _, _ = fields
    return Shape(count=len(_TABLES), meta=header_length, record=None)


# The tables: their names in a damaged file's message, and their item type and how many items
# each holds, from the fields (characters, merges).
_TABLES = (("<u4", 0), ("<u8", 1), ("<u4", 1), ("<u4", 1))
LAYOUT = Layout(
    kind=b"docbot-query-tokens",
    version=2,  # 1: the same tables in a file of its own making, before the container
    fields=struct.Struct("<QQQ"),  # header length, single characters, merges
    shape=_shape,
    checksum=CRC32,
    head_damaged="its header or table of tables does not match its checksum",
    record="table",
    error=QueryTokensError,
)


def compile_tables(tokenizer_file: Path) -> bytes | None:
    """The tables for the tokenizer in `tokenizer_file`, or None if it is not of the one
    shape QueryTokens repeats exactly (then questions always go to the real tokenizer)."""
    return _tables(tokenizer_file.read_bytes())


# Kept for the last few tokenizer files (a process has one installed; the test suite also
# compiles edited copies, which evicted the installed one's when one was kept): compiling
# takes ~0.15 s of CPU, which every build into a new state folder paid again in a process that
# builds several (the test suite's hundreds of small indexes, a benchmark's corpora). Keyed by
# the file's bytes, so an edited file is compiled afresh; an entry is ~3 MB.
@functools.lru_cache(maxsize=4)
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
    tables = [a.tobytes() for a in arrays]
    buffer = io.BytesIO()
    fields = (len(encoded), len(singles), len(keys))
    lengths = [len(table) for table in tables]
    checksums = [CRC32.of(table) for table in tables]
    record_file.write(buffer, LAYOUT, fields, encoded, tables, checksums, lengths)
    return buffer.getvalue()


def _pair(left: int, right: int) -> int:
    return (left << 32) | right


def _header(header: object, chars: int) -> dict[str, Any] | None:
    """`header` if it is what `compile_tables` writes for `chars` single characters, else None."""
    if (
        isinstance(header, dict)
        and isinstance(header.get("source_sha256"), str)
        and isinstance(header.get("chars"), str)
        and len(header["chars"]) == chars
        and isinstance(header.get("specials"), list)
        and all(isinstance(special, str) and special for special in header["specials"])
        and isinstance(header.get("bytes"), list)
        and len(header["bytes"]) == 256
        and all(type(piece) is int for piece in header["bytes"])
    ):
        return header
    return None


class QueryTokens:
    """Token ids of short texts, exactly as the tokenizer the tables were made from gives them
    (special tokens not added), or None where it cannot be sure."""

    def __init__(
        self,
        data: ReadableBuffer,
        where: str,
        fix: str,
        *,
        verified: bool = False,
        cached_pairs: int = _CACHED_PAIRS,
    ) -> None:
        """Refused with QueryTokensError "`where` is damaged (what): `fix`" unless `data` is a
        whole query tokens file of this version. `verified`: it matched the manifest's sha256
        already, so the tables' checksums are not checked again. `cached_pairs`: how many pair
        lookups `_merge` remembers at most."""
        file = RecordFile(data, LAYOUT, where, fix, verified=verified)
        try:
            found: object = json.loads(bytes(file.meta).decode("utf-8"))
        except ValueError as exc:  # not UTF-8, or not JSON
            raise file.damaged(f"its header is unreadable ({exc})") from exc
        _, chars_count, merges = file.fields
        header = _header(found, chars_count)
        if header is None:
            raise file.damaged("its header is not a query tokens file's")
        tables = []
        for position, (dtype, counted) in enumerate(_TABLES):
            table = file.record(position)  # checked against its checksum unless verified
            count = (chars_count, merges)[counted]
            if len(table) != np.dtype(dtype).itemsize * count:
                raise file.damaged(f"table {position} is not of {count} items")
            tables.append(np.frombuffer(table, dtype=dtype, count=count))
        ids, self._keys, self._ranks, self._merged = tables
        self.source_sha256: str = header["source_sha256"]
        self._chars = dict(zip(header["chars"], ids.tolist(), strict=True))
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
    """Named by the model, the tables' layout version and the tokenizer file's sha256, as every
    index file by its content: a build for another tokenizer file, or by a docbot of another
    layout version, writes a new file, never over one a manifest names (the previous index
    stays whole until the new manifest replaces it, and an older docbot's is never broken)."""
    tag = model_tag(embedder)
    return f"vectors/query-tokens-{tag}-v{LAYOUT.version}-{source_sha256[:16]}.bin"


def write_query_tokens(root: Path, embedder: Embedder) -> dict[str, Any] | None:
    """The manifest entry of the embedder's query tokens under `root` (kept if already there,
    whole, and made from the installed tokenizer file), or None for a model without them."""
    if not isinstance(embedder, StaticEmbedder) or embedder.tokenizer_file is None:
        return None
    source = embedder.tokenizer_file
    source_sha256 = hashlib.sha256(source.read_bytes()).hexdigest()
    file = _file(embedder, source_sha256)
    path = root / file
    where = f"the query tokens file {path}"
    try:  # no manifest vouches for it yet: every table is checked
        existing = bytes(record_file.read(path, LAYOUT, where, _REWRITTEN, size=None))
        made_from = QueryTokens(existing, where, _REWRITTEN).source_sha256
        data: bytes | None = existing if made_from == source_sha256 else None
    except QueryTokensError:  # absent or damaged: written again
        data = None
    if data is None:
        data = compile_tables(source)
        if data is None:
            return None
        write_atomically(path, data)
    return {
        "file": file,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "model": embedder.name,
    }


def question_embedder(root: Path, entry: object, embedder: Embedder, fix: str) -> Embedder:
    """`embedder` with the index's query tokens (its manifest `entry`) when they were made
    for this model from the installed tokenizer file; else `embedder` itself.

    The query tokens are a cache of the tokenizer, not the index's content: without them the
    model's own tokenizer gives the same ids. So a file that is missing, damaged or of
    another docbot version is not used, with a warning that says so and what to do ("run
    `docbot index` again", which writes it anew), instead of refusing the whole index."""
    if not (
        isinstance(entry, dict)
        and isinstance(embedder, StaticEmbedder)
        and embedder.tokenizer_file is not None
        and entry.get("model") == embedder.name
    ):
        return embedder
    path = root / str(entry["file"])
    where = f"the query tokens file {path}"
    size, sha256 = int(entry["bytes"]), str(entry["sha256"])
    try:
        data = record_file.read(path, LAYOUT, where, fix, size=size, sha256=sha256)
        tokens = QueryTokens(data, where, fix, verified=True)
    except QueryTokensError as exc:
        log.warning("%s; questions are tokenized by the model's tokenizer until then", exc)
        return embedder
    try:
        installed = hashlib.sha256(embedder.tokenizer_file.read_bytes()).hexdigest()
    except OSError:
        return embedder  # its own tokenizer reads the file when needed, and says what is wrong
    if tokens.source_sha256 != installed:
        return embedder  # another tokenizer file is installed now: only it tells its tokens
    return QuestionEmbedder(embedder, tokens)
