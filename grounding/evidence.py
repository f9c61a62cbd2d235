"""The evidence packet: a small, labelled, budgeted set of chunks and a ledger of what was left out.

`pack` is pure: hits in rank order in, E1..En and the reason for every omitted candidate out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from grounding.untrusted import evidence_block, fence_tag
from retrieval.chunks import Chunk, Hit
from retrieval.config import AnswerConfig
from retrieval.scopes import Scope

Adjacent = Callable[[Chunk], tuple[Chunk | None, Chunk | None]]

# A chunk this short under its heading is an introduction: the substance is in the next chunk.
THIN_WORDS = 40
_CONTINUES_LIST = re.compile(r"^\s*(?:(?:step\s+)?(\d+)[.):]|[-*+]\s|[a-z]\)\s)", re.IGNORECASE)
_HEADING_LINE = re.compile(r"^\s*(?:#{1,6}\s|([=\-~^\"'`#*+:.])\1{2,}\s*$)")


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


@dataclass(frozen=True, slots=True)
class PackPolicy:
    evidence_tokens: int = 3000  # counted with o200k_base
    per_source_limit: int = 2
    min_score: float = 0.0
    neighbours: bool = True
    neighbour_cap: int = 2  # at most this many neighbour chunks added to a packet

    @classmethod
    def from_config(cls, answer: AnswerConfig) -> PackPolicy:
        """The policy a config file's `answer:` section asks for; the rest keep their defaults."""
        return cls(
            evidence_tokens=answer.evidence_tokens,
            per_source_limit=answer.per_source_limit,
            min_score=answer.min_score,
            neighbours=answer.neighbours,
        )


@dataclass(frozen=True, slots=True)
class PacketSize:
    """How much a generator that reads its packet in code asks for, beyond the `answer:` config.

    `answer.evidence_tokens` and `per_source_limit` size a model's prompt. A reader with no
    prompt (the extractive generator) can afford a wider packet: it reads at least these many
    tokens, chunks per file and hits; a larger config value still wins. `neighbours`, when
    set, replaces the config's.
    """

    evidence_tokens: int
    per_source_limit: int
    k: int
    neighbours: bool | None = None

    def widen(self, policy: PackPolicy, k: int) -> tuple[PackPolicy, int]:
        """The policy and number of hits this reader packs, from the ones configured."""
        wider = replace(
            policy,
            evidence_tokens=max(policy.evidence_tokens, self.evidence_tokens),
            per_source_limit=max(policy.per_source_limit, self.per_source_limit),
            neighbours=policy.neighbours if self.neighbours is None else self.neighbours,
        )
        return wider, max(k, self.k)


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    label: str  # E1..En
    chunk: Chunk
    score: float
    neighbour: bool = False  # added next to a hit rather than retrieved
    same_text: tuple[str, ...] = ()  # chunk ids of other hits with this digest


@dataclass(frozen=True, slots=True)
class Omission:
    chunk_id: str
    reason: str  # duplicate | same_text_as | per_source_limit | budget | below_min_score
    detail: str = ""


@dataclass(frozen=True, slots=True)
class EvidencePacket:
    question: str
    scope: Scope
    generation: str  # the index generation the hits came from
    policy: PackPolicy
    items: tuple[EvidenceItem, ...]
    omitted: tuple[Omission, ...]
    tokens: int  # evidence tokens used
    nonce: str = ""  # the fence nonce the blocks were counted with; build_prompt renders with it

    def item(self, label: str) -> EvidenceItem | None:
        for item in self.items:
            if item.label == label:
                return item
        return None

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(item.label for item in self.items)


@dataclass(slots=True)
class _Packing:
    """The mutable state of one `pack` call; frozen into an EvidencePacket at the end."""

    policy: PackPolicy
    counter: TokenCounter
    nonce: str
    items: list[EvidenceItem] = field(default_factory=list)
    omitted: list[Omission] = field(default_factory=list)
    tokens: int = 0
    neighbours: int = 0
    by_id: dict[str, str] = field(default_factory=dict)  # chunk id -> label
    by_digest: dict[str, int] = field(default_factory=dict)  # digest -> item index
    per_source: dict[tuple[str, str], int] = field(default_factory=dict)

    def next_label(self, offset: int = 0) -> str:
        return f"E{len(self.items) + 1 + offset}"

    def cost(self, chunk: Chunk, offset: int = 0) -> int:
        return self.counter.count(evidence_block(self.next_label(offset), chunk, self.nonce))

    def fits(self, tokens: int) -> bool:
        return self.tokens + tokens <= self.policy.evidence_tokens

    def add(self, chunk: Chunk, score: float, tokens: int, *, neighbour: bool = False) -> None:
        label = self.next_label()
        self.by_id[chunk.chunk_id] = label
        self.by_digest.setdefault(chunk.digest, len(self.items))
        self.items.append(EvidenceItem(label, chunk, score, neighbour=neighbour))
        self.tokens += tokens
        self.neighbours += neighbour

    def omit(self, chunk_id: str, reason: str, detail: str = "") -> None:
        self.omitted.append(Omission(chunk_id, reason, detail))


def pack(
    question: str,
    scope: Scope,
    generation: str,
    hits: Sequence[Hit],
    policy: PackPolicy,
    counter: TokenCounter,
    adjacent: Adjacent | None = None,
    *,
    nonce: str = "",
) -> EvidencePacket:
    """Select evidence from `hits` (in rank order) under `policy`; ledger every one left out.

    `nonce` (see `untrusted.new_nonce`) is the fence the prompt will use: each block is counted
    with it, so the budget counts exactly what is sent. The pipeline always passes a fresh one;
    "" (the bare tag) is for offline tools only.

    Order of the rules: a chunk id already packed is a `duplicate`; a score under the minimum is
    `below_min_score`; a text already packed (same digest) is `same_text_as` its representative;
    a (collection, path) at its limit is `per_source_limit`; a hit that does not fit what is left
    of the token budget is `budget`, and packing goes on with the later hits, so one oversized
    hit ranked first cannot crowd out every smaller one after it.
    Neighbours (policy.neighbours, when `adjacent` is given) fill in the start of a procedure or
    the body under a bare heading; they do not count towards the per-source limit.
    """
    fence_tag(nonce)  # a nonce that could break the tag fails here, before any counting
    state = _Packing(policy, counter, nonce)
    for hit in sorted(hits, key=lambda h: h.rank):
        reason = _rejection(state, hit)
        if reason is not None:
            state.omit(hit.chunk.chunk_id, *reason)
            continue
        _take(state, hit, adjacent if policy.neighbours else None)
    return EvidencePacket(
        question=question,
        scope=scope,
        generation=generation,
        policy=policy,
        items=_with_same_text(state),
        omitted=tuple(state.omitted),
        tokens=state.tokens,
        nonce=nonce,
    )


def _rejection(state: _Packing, hit: Hit) -> tuple[str, str] | None:
    chunk = hit.chunk
    if chunk.chunk_id in state.by_id:
        return "duplicate", state.by_id[chunk.chunk_id]
    if hit.score < state.policy.min_score:
        return "below_min_score", f"score {hit.score:.4g} < {state.policy.min_score:.4g}"
    if chunk.digest in state.by_digest:
        return "same_text_as", state.items[state.by_digest[chunk.digest]].chunk.chunk_id
    source = (chunk.collection, chunk.path)
    if state.per_source.get(source, 0) >= state.policy.per_source_limit:
        return "per_source_limit", f"{chunk.collection}/{chunk.path}"
    return None


def _take(state: _Packing, hit: Hit, adjacent: Adjacent | None) -> None:
    """Pack `hit`, with the neighbour it needs when that also fits; or ledger it as `budget`."""
    chunk = hit.chunk
    tokens = state.cost(chunk)
    if not state.fits(tokens):
        left = state.policy.evidence_tokens - state.tokens
        state.omit(chunk.chunk_id, "budget", f"needs {tokens} tokens, {left} left")
        return
    before, after = _neighbours(state, chunk, adjacent)
    if before is not None:
        before_tokens = state.cost(before)
        tokens_after_before = state.cost(chunk, offset=1)
        if state.fits(before_tokens + tokens_after_before):
            state.add(before, hit.score, before_tokens, neighbour=True)
            tokens = tokens_after_before
    state.add(chunk, hit.score, tokens)
    state.per_source[(chunk.collection, chunk.path)] = (
        state.per_source.get((chunk.collection, chunk.path), 0) + 1
    )
    if after is not None:
        after_tokens = state.cost(after)
        if state.fits(after_tokens):
            state.add(after, hit.score, after_tokens, neighbour=True)


def _neighbours(
    state: _Packing, chunk: Chunk, adjacent: Adjacent | None
) -> tuple[Chunk | None, Chunk | None]:
    """The previous and/or next chunk of the same section that `chunk` needs to be read right."""
    if adjacent is None or state.neighbours >= state.policy.neighbour_cap:
        return None, None
    previous, following = adjacent(chunk)
    # The two cases exclude each other: mid-section needs a previous chunk of the same section,
    # a thin opening needs the previous chunk to be of another section (or none).
    if (
        previous is not None
        and _usable(state, chunk, previous)
        and starts_mid_section(chunk, previous)
    ):
        return previous, None
    if (
        following is not None
        and _usable(state, chunk, following)
        and thin_under_heading(chunk, previous)
    ):
        return None, following
    return None, None


def _usable(state: _Packing, chunk: Chunk, other: Chunk) -> bool:
    return (
        other.heading_path == chunk.heading_path
        and other.path == chunk.path
        and other.collection == chunk.collection
        and other.chunk_id not in state.by_id
        and other.digest not in state.by_digest
    )


def starts_mid_section(chunk: Chunk, previous: Chunk) -> bool:
    """True when `chunk` continues `previous` (same section): a list, a sentence, or the section.

    Under a heading, a chunk that follows one of the same heading path is that section's
    continuation (the chunker starts each section at its heading). Without headings, only the
    text tells: a numbered item past 1, a bullet, or a sentence resuming in lowercase.
    """
    if previous.heading_path != chunk.heading_path:
        return False
    if chunk.heading_path:
        return True
    first = _first_line(chunk.text)
    listed = _CONTINUES_LIST.match(first)
    if listed:
        return listed.group(1) is None or int(listed.group(1)) > 1
    return bool(first) and first[0].islower()


def thin_under_heading(chunk: Chunk, previous: Chunk | None) -> bool:
    """True when `chunk` opens its section with little more than the heading itself."""
    if not chunk.heading_path:
        return False
    if previous is not None and previous.heading_path == chunk.heading_path:
        return False
    body = [line for line in chunk.text.splitlines() if not _HEADING_LINE.match(line)]
    body = [line for line in body if line.strip() not in chunk.heading_path]
    return len(" ".join(body).split()) < THIN_WORDS


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _with_same_text(state: _Packing) -> tuple[EvidenceItem, ...]:
    """Record on each representative the other hits that had its exact text."""
    groups: dict[str, list[str]] = {}
    for omission in state.omitted:
        if omission.reason == "same_text_as":
            groups.setdefault(omission.detail, []).append(omission.chunk_id)
    return tuple(
        replace(item, same_text=tuple(groups.get(item.chunk.chunk_id, ()))) for item in state.items
    )
