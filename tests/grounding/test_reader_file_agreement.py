"""The answerer reads whether the ranker's other likely units agree on the best unit's file.

Where the docs answer a question, the units around the answer tend to be likely too, so the
ranker's probability outside its best unit gathers in the best unit's file; a lone match in a
packet that does not answer leaves the rest spread as the units are. `file_agreement` is that
file's share of the probability outside the best unit less its share of the other units: a
file filling most of the packet gathers probability by its size alone, which is no agreement.
The logits here stand for the ranker's, so the feature is read apart from any trained weight.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from grounding.generators.extractive import shared_embedder
from grounding.generators.reader_model import Linear
from grounding.generators.reading import (
    QUESTION_FEATURES,
    UNIT_FEATURES,
    Reading,
    _defined,
    question_features,
    read,
)
from retrieval.errors import DocbotError
from tests.grounding.test_reader import chunk, packet

TIMEOUTS = """\
## Timeouts

The client waits five seconds for a connection by default.

Pass a timeout to the client to change how long it waits.

A timeout of None waits forever.
"""
POOLS = """\
## Pools

The pool keeps ten connections open by default.

Connections left idle are closed after a while.

Set the pool limits on the client.
"""
PROXIES = """\
## Proxies

Proxies are read from the environment unless told otherwise.

Each proxy URL names its scheme.

A proxy may ask for credentials.
"""


def reading() -> Reading:
    return read(
        packet(
            "how long does the client wait for a connection",
            chunk(TIMEOUTS, "timeouts.md", "Timeouts"),
            chunk(POOLS, "pools.md", "Pools"),
            chunk(PROXIES, "proxies.md", "Proxies"),
        ),
        shared_embedder(),
    )


def agreement(r: Reading, logits: npt.NDArray[np.float64]) -> float:
    return float(question_features(r, logits)[QUESTION_FEATURES.index("file_agreement")])


def files(r: Reading) -> list[str]:
    return [c.item.chunk.path for c in r.pool]


def test_likely_units_in_the_best_units_file_agree() -> None:
    r = reading()
    paths = files(r)
    # The best unit is the first of timeouts.md; the other likely units are its neighbours.
    logits = np.array([2.0 if p == "timeouts.md" else -3.0 for p in paths])
    logits[0] = 5.0
    in_file = (paths.count("timeouts.md") - 1) / (len(paths) - 1)
    assert agreement(r, logits) > 0.5
    assert agreement(r, logits) < 1.0 - in_file + 1e-9  # never beyond all the rest in the file


def test_probability_spread_as_the_units_are_is_no_agreement() -> None:
    r = reading()
    logits = np.zeros(len(r.pool))
    logits[0] = 5.0  # one strong match, the rest all alike
    assert abs(agreement(r, logits)) < 1e-9


def test_likely_units_in_other_files_disagree() -> None:
    r = reading()
    paths = files(r)
    logits = np.array([-3.0 if p == "timeouts.md" else 2.0 for p in paths])
    logits[0] = 5.0
    assert agreement(r, logits) < 0.0


def test_a_file_filling_the_packet_gains_nothing_by_its_size() -> None:
    r = read(
        packet(
            "how long does the client wait for a connection",
            chunk(TIMEOUTS, "client.md", "Timeouts"),
            chunk(POOLS, "client.md", "Pools"),
            chunk(PROXIES, "proxies.md", "Proxies"),
        ),
        shared_embedder(),
    )
    assert files(r).count("client.md") > files(r).count("proxies.md")
    logits = np.zeros(len(r.pool))
    logits[0] = 5.0  # every other unit alike: client.md holds most of the rest by count alone
    assert abs(agreement(r, logits)) < 1e-9


def test_a_packet_of_one_file_has_nothing_to_agree_with() -> None:
    # A one-document scope: no unit outside the best unit's file, so agreement is undefined
    # (NaN), not a lack of it; the answerer reads it as the feature's mean.
    lone = read(
        packet("how long does the client wait", chunk("The client waits five seconds.\n")),
        shared_embedder(),
    )
    assert len(lone.pool) == 1
    assert math.isnan(agreement(lone, np.array([3.0])))
    one_file = read(
        packet(
            "how long does the client wait for a connection",
            chunk(TIMEOUTS, "client.md", "Timeouts"),
            chunk(POOLS, "client.md", "Pools"),
        ),
        shared_embedder(),
    )
    logits = np.zeros(len(one_file.pool))
    logits[0] = 5.0
    assert math.isnan(agreement(one_file, logits))


def test_an_undefined_feature_weighs_nothing_in_the_answerer() -> None:
    answerer = Linear(("a", "b"), np.array([1.0, 0.3]), np.array([2.0, 0.2]), np.ones(2), 0.5)
    at_mean = answerer.logits(np.array([[3.0, 0.3]]))
    undefined = answerer.logits(np.array([[3.0, math.nan]]))
    assert undefined[0] == at_mean[0] == 1.5


def test_a_nan_in_a_feature_that_is_always_defined_is_a_bug_not_a_mean() -> None:
    row = np.zeros(len(QUESTION_FEATURES))
    row[QUESTION_FEATURES.index("file_agreement")] = math.nan
    assert _defined(row, QUESTION_FEATURES) is row  # the one feature allowed to be undefined
    row[QUESTION_FEATURES.index("margin")] = math.nan
    with pytest.raises(DocbotError, match="no value for margin"):
        _defined(row, QUESTION_FEATURES)
    units = np.zeros((3, len(UNIT_FEATURES)))
    units[1, UNIT_FEATURES.index("semantic")] = math.nan
    with pytest.raises(DocbotError, match="no value for semantic"):
        _defined(units, UNIT_FEATURES)
