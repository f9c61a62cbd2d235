"""The reader sees how much of a unit is words the question does not have.

A sentence that restates the question (its problem, its setting) shares most of its words with
it and tells nothing new; the one that answers adds words of its own. `new_words` is the share
of the unit's distinct words the question lacks; the ranker's weight for it is fit by
training/train_reader.py.
"""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import shared_embedder
from grounding.generators.reading import UNIT_FEATURES, read
from tests.grounding.test_reader import chunk, packet

SESSIONS = """\
## Clearing the session store

The session table keeps growing.

Run clearsessions from a daily cron job to purge expired rows.
"""


def test_a_unit_restating_the_question_has_fewer_new_words_than_its_answer() -> None:
    reading = read(
        packet("the session table keeps growing", chunk(SESSIONS, "sessions.txt")),
        shared_embedder(),
    )
    column = reading.units[:, UNIT_FEATURES.index("new_words")]
    shares = {c.unit.text: float(v) for c, v in zip(reading.pool, np.asarray(column), strict=True)}
    assert shares["The session table keeps growing."] == 0.0
    assert shares["Run clearsessions from a daily cron job to purge expired rows."] == 1.0
