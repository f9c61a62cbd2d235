"""training/answerer_misses.py and training/cv_answerer.py: the AUC separating right first
passages from uncovered questions, the counts a threshold gives, and a corpus held out of its
own fit (its labels cannot reach the probabilities it is scored with)."""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import QUESTION_FEATURES
from tests.grounding.test_reader import chunk, packet
from training.answerer_misses import auc
from training.cv_answerer import Row, figures, out_of_fold
from training.reader_data import Example, labelled

GUIDE = """\
## Timeouts

Requests time out after ten seconds of network inactivity.
"""


def row(corpus: str, answerable: bool, right: bool, best_logit: float, source: str = "docs") -> Row:
    example = Example(source, "how long until a request times out", answerable, ("guide.md",), ())
    read = labelled(example, packet(example.question, chunk(GUIDE)), shared_embedder())
    read.labels[:] = float(answerable)
    features = np.zeros(len(QUESTION_FEATURES))
    features[QUESTION_FEATURES.index("best_logit")] = best_logit
    return Row(read, corpus, features, {}, right)


def test_auc_counts_pairs_and_halves_ties() -> None:
    assert auc([3.0, 4.0], [1.0, 2.0]) == 1.0
    assert auc([1.0], [2.0]) == 0.0
    assert auc([1.0, 2.0], [1.0, 0.0]) == 0.875
    assert np.isnan(auc([], [1.0]))


def test_figures_count_right_answers_and_refused_uncovered_questions() -> None:
    rows = [row("a", True, True, 0), row("a", True, False, 0), row("a", False, False, 0)]
    got = figures(rows, [0.9, 0.9, 0.2], threshold=0.5)
    assert (got.right, got.covered, got.refused, got.uncovered) == (1, 2, 1, 1)
    got = figures(rows, [0.9, 0.9, 0.7], threshold=0.5)
    assert got.refused == 0


def test_a_held_out_corpus_is_scored_by_a_fit_that_never_saw_it() -> None:
    squad = [
        row("squad", i % 2 == 0, False, 1.0 if i % 2 == 0 else -1.0, "squad") for i in range(40)
    ]
    a = [row("a", i % 2 == 0, i % 2 == 0, 1.0 if i % 2 == 0 else -1.0) for i in range(20)]
    b = [row("b", True, True, 1.0) for _ in range(10)]
    flipped = [row("b", False, False, 1.0) for _ in range(10)]
    first = out_of_fold([*a, *b], squad, (), 0.8)
    second = out_of_fold([*a, *flipped], squad, (), 0.8)
    # Corpus b's own labels change nothing in the probabilities it is scored with ...
    assert np.allclose(first[20:], second[20:])
    # ... while corpus a's, fit on b among the rest, move.
    assert not np.allclose(first[:20], second[:20])
