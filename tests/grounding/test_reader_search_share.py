"""The reader sees how far ahead of the others retrieval put each unit's item.

Its place in the packet (`rank`) says only the order; `retrieval_score` is the item's search
score over the packet's best, so a hit far ahead of the rest stands apart from one that led by
a hair. A neighbour packed next to a hit carries that hit's score. The ranker's weight for it is
fit by training/train_reader.py.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grounding.evidence import EvidenceItem, EvidencePacket
from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import UNIT_FEATURES, read
from tests.grounding.test_reader import chunk, packet

TIMEOUTS = """\
## Timeouts

The client waits five seconds for a connection by default.
"""
POOLS = """\
## Pools

The pool keeps ten connections open by default.
"""


def shares(scored: EvidencePacket) -> list[float]:
    reading = read(scored, shared_embedder())
    column = reading.units[:, UNIT_FEATURES.index("retrieval_score")]
    return [round(float(v), 6) for v in np.asarray(column)]


def scored(*scores: float) -> EvidencePacket:
    base = packet(
        "how long does the client wait",
        chunk(TIMEOUTS, "timeouts.md", "Timeouts"),
        chunk(POOLS, "pools.md", "Pools"),
    )
    items = tuple(
        EvidenceItem(item.label, item.chunk, score)
        for item, score in zip(base.items, scores, strict=True)
    )
    return replace(base, items=items)


def test_a_units_search_share_is_its_items_score_over_the_best() -> None:
    assert shares(scored(8.0, 2.0)) == [1.0, 0.25]
    assert shares(scored(8.0, 7.6)) == [1.0, 0.95]


def test_the_order_of_the_items_is_not_the_share() -> None:
    # A neighbour or a later item can score as high as the first: the share says so.
    assert shares(scored(3.0, 6.0)) == [0.5, 1.0]


@pytest.mark.parametrize("scores", [(0.0, 0.0), (-1.0, -2.0)])
def test_scores_that_are_not_positive_count_every_item_alike(scores: tuple[float, ...]) -> None:
    assert shares(scored(*scores)) == [1.0, 1.0]
