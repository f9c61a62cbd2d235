"""training/collection_levels.py: a collection's shift moves only its own questions, the
separation it reports is pooled and within corpora, and the labelled ceiling holds the floor."""

from __future__ import annotations

import numpy as np

from training.collection_levels import Scored, ceiling, centred, separation, shifted


def corpus(name: str, level: float) -> list[Scored]:
    """Two right first passages above two uncovered questions, all `level` logits up."""
    return [
        Scored(name, level + 1.0, True, True),
        Scored(name, level + 0.5, True, True),
        Scored(name, level - 0.5, False, False),
        Scored(name, level - 1.0, False, False),
    ]


def test_levels_are_centred_and_scaled() -> None:
    assert centred({"a": 1.0, "b": -1.0}) == {"a": 1.0, "b": -1.0}
    assert centred({"a": 3.0, "b": 1.0}, 0.5) == {"a": 0.5, "b": -0.5}


def test_a_corpus_level_apart_separates_within_but_not_pooled_until_shifted() -> None:
    rows = corpus("high", 2.0) + corpus("low", -2.0)
    pooled, within = separation(rows, shifted(rows, {"high": 0.0, "low": 0.0}))
    assert within == 1.0 and pooled < 1.0
    pooled, within = separation(rows, shifted(rows, {"high": 2.0, "low": -2.0}))
    assert pooled == within == 1.0


def test_nothing_to_read_stays_refused_whatever_the_shift() -> None:
    rows = [Scored("a", None, False, True)]
    assert shifted(rows, {"a": -100.0})[0] == -50.0


def test_the_ceiling_picks_each_corpus_its_own_threshold() -> None:
    rows = corpus("high", 2.0) + corpus("low", -2.0)
    right, refused, thresholds = ceiling(rows, np.arange(-4.0, 4.01, 0.25))
    assert (right, refused) == (4, 4)
    assert -0.5 < thresholds["high"] - 2.0 <= 0.5 and -0.5 < thresholds["low"] + 2.0 <= 0.5
