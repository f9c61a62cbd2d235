"""How training/train_reader.py picks the answerer's threshold on the train split
(training/reader_threshold.py).

The most questions answered right among the thresholds that refuse at least REFUSAL_FLOOR
(issue 8's target) of the uncovered questions; when none does, the one refusing the most.
The figures here are made up for the rule, not taken from a split.
"""

from __future__ import annotations

from training.reader_threshold import REFUSAL_FLOOR, pick_threshold

UNCOVERED = [0.1] * 8 + [0.55, 0.6]  # the answerer's probability for ten uncovered questions
RIGHT = [0.3, 0.4, 0.5, 0.57, 0.58, 0.7, 0.8, 0.9, 0.9, 0.9]  # ten it would answer right


def pick(uncovered: list[float], right: list[float]) -> tuple[float, str]:
    probs = uncovered + right
    covered = [False] * len(uncovered) + [True] * len(right)
    _, threshold, summary = pick_threshold(probs, covered, covered)  # every covered one right
    return threshold, summary


def test_the_most_answers_among_thresholds_that_refuse_enough() -> None:
    threshold, summary = pick(UNCOVERED, RIGHT)
    # 0.56 refuses 9 of 10 uncovered (0.55 would refuse 8, under the floor) and answers 7 of
    # the 10 right; a higher one refuses all 10 but answers fewer. Answered right + refused
    # would take 0.31 (9 right, 8 refused), under the floor.
    assert REFUSAL_FLOOR == 0.85
    assert threshold == 0.56
    assert summary == "answered right 0.700, uncovered refused 0.900"


def test_without_a_threshold_refusing_enough_the_one_refusing_most() -> None:
    threshold, summary = pick([0.99] * 5 + [0.2] * 5, RIGHT)
    assert threshold == 0.21
    assert summary.endswith("uncovered refused 0.500")
