"""The evidence packet: a small, labelled, budgeted set of chunks, and a ledger of what was left out."""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.chunks import Chunk
from retrieval.scopes import Scope


@dataclass(frozen=True, slots=True)
class PackPolicy:
    evidence_tokens: int = 3000  # counted with o200k_base
    per_source_limit: int = 2
    min_score: float = 0.0
    neighbours: bool = True
    neighbour_cap: int = 2  # at most this many neighbour chunks added to a packet


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

    def item(self, label: str) -> EvidenceItem | None:
        for item in self.items:
            if item.label == label:
                return item
        return None
