"""A rare name the packet holds only away from the best unit still counts as missing.

The answerer's `window_missing_rare` is the rarity (tokenizer pieces) of the rarest question
word the best unit's window lacks: the unit, its headings and lead-in, and the units right
before and after it in its chunk. Before, only words no unit of the whole packet held
counted, so a question naming a tool the docs mention once in another section ("run it on
kubernetes") looked covered wherever its best unit was. Its weight is fit by
training/train_reader.py; these tests pin what the feature reads.
"""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import QUESTION_FEATURES, Reading, question_features, read
from tests.grounding.test_reader import chunk, packet

WORKERS = """\
## Workers

The server starts one worker process for each core it finds, and restarts a worker that
stops answering requests within thirty seconds.
"""
DEPLOYING = """\
## Deploying

Some teams run the server on kubernetes, with one container for each release they ship.
"""
WORKERS_THEN_DEPLOYING = WORKERS + "\n" + DEPLOYING.replace("## Deploying\n\n", "")
QUESTION = "how many worker processes does the server start on kubernetes?"


def reading(*texts: str) -> Reading:
    chunks = [chunk(text, f"page{i}.md", "Server") for i, text in enumerate(texts)]
    return read(packet(QUESTION, *chunks), shared_embedder())


def missing_with_best(r: Reading, words: str) -> float:
    """The feature when the unit holding `words` is the one the ranker put first."""
    best = next(i for i, c in enumerate(r.pool) if words in c.unit.text)
    logits = np.zeros(len(r.pool))
    logits[best] = 5.0
    features = question_features(r, logits)
    return float(features[QUESTION_FEATURES.index("window_missing_rare")])


def test_a_rare_name_only_in_another_section_is_missing_around_the_best_unit() -> None:
    r = reading(WORKERS, DEPLOYING)
    assert missing_with_best(r, "one worker process") > 0.0
    assert missing_with_best(r, "on kubernetes") == 0.0


def test_the_units_next_to_the_best_one_are_its_window() -> None:
    r = reading(WORKERS_THEN_DEPLOYING)
    assert missing_with_best(r, "one worker process") == 0.0


def test_common_words_the_window_lacks_are_not_rare() -> None:
    r = reading(WORKERS, DEPLOYING)
    assert missing_with_best(r, "on kubernetes") == 0.0  # "worker", "processes" are elsewhere
    assert all(r.rarity[t] == 0.0 for t in r.rarity if t.startswith(("worker", "process")))
