"""training/ranker_misses.py lists a question only when its right unit is in the packet and the
quoted passages miss it, with the unit ranked first and the right one."""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import shared_embedder
from grounding.generators.reader_model import Linear, ReaderModel
from grounding.generators.reading import QUESTION_FEATURES, UNIT_FEATURES
from grounding.generators.segmentation import UnitKind
from tests.grounding.test_reader import chunk, packet
from training.ranker_misses import describe, first_right, misses, places
from training.reader_data import Example, Read, labelled

GUIDE = """\
## Timeouts

Requests time out after ten seconds of network inactivity.

A client can be shared between threads and keeps its pool of connections.

```python
client = Client(timeout=None)
```
"""


def model(code_weight: float) -> ReaderModel:
    """A ranker that only looks at whether a unit is code."""
    weights = np.zeros(len(UNIT_FEATURES))
    weights[UNIT_FEATURES.index("is_code")] = code_weight
    n, q = len(UNIT_FEATURES), len(QUESTION_FEATURES)
    ranker = Linear(UNIT_FEATURES, np.zeros(n), np.ones(n), weights, 0.0)
    answerer = Linear(QUESTION_FEATURES, np.zeros(q), np.ones(q), np.zeros(q), 0.0)
    return ReaderModel(ranker, answerer, threshold=0.5, extra_ratio=1.01)


def read(question: str, answerable: bool = True) -> Read:
    example = Example("docs", question, answerable, ("guide.md",), ("ten seconds",))
    return labelled(example, packet(question, chunk(GUIDE)), shared_embedder())


def test_a_right_unit_ranked_below_code_is_listed_with_both_units() -> None:
    found = misses([read("how long until a request times out")], model(code_weight=5.0))
    assert len(found) == 1
    miss = found[0]
    assert miss.chosen.candidate.unit.kind is UnitKind.CODE
    assert "ten seconds" in miss.right.candidate.unit.text
    assert miss.right_rank == 1
    assert miss.units == 3
    text = describe(miss)
    assert "right unit ranked 2 of 3" in text and "is_code=1.00" in text


def test_a_right_unit_quoted_first_or_an_uncovered_question_is_not_listed() -> None:
    assert misses([read("how long until a request times out")], model(code_weight=-5.0)) == []
    uncovered = read("how long until a request times out", answerable=False)
    assert misses([uncovered], model(code_weight=5.0)) == []


def test_first_right_counts_the_answerable_reads_whose_first_unit_is_right() -> None:
    reads = [read("how long until a request times out"), read("timeouts", answerable=False)]
    assert first_right(reads, model(code_weight=5.0)) == 0
    assert first_right(reads, model(code_weight=-5.0)) == 1


def test_places_says_where_the_first_and_the_right_unit_sit() -> None:
    found = misses([read("how long until a request times out")], model(code_weight=5.0))
    assert places(found) == (
        "the first unit is in the packet's first item in 1, the right unit in a later item "
        "in 0, in the first unit's own section in 1"
    )
