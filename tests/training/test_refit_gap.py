"""training/refit_gap.py: the counts a threshold gives two weight files on the same questions,
the floor's count, and the spread of the floor rule's threshold over resamples."""

from __future__ import annotations

from training.reader_threshold import pick_threshold
from training.refit_gap import Judged, Point, around, curve, floor_count, threshold_spread


def questions(covered: list[float], uncovered: list[float]) -> list[Judged]:
    """Covered questions (each right when answered) and uncovered ones at these probabilities."""
    return [Judged(p, True, True) for p in covered] + [Judged(p, False, False) for p in uncovered]


def test_curve_counts_answered_right_and_uncovered_refused() -> None:
    qs = [*questions([0.9, 0.6], [0.55, 0.2]), Judged(0.8, False, True)]
    assert curve(qs, [0.5, 0.56, 0.95]) == [Point(0.5, 2, 1), Point(0.56, 2, 2), Point(0.95, 0, 2)]


def test_the_floor_is_the_fewest_uncovered_refusals_reaching_its_share() -> None:
    assert floor_count(questions([], [0.1] * 107)) == 91  # 0.85 * 107 = 90.95
    assert floor_count(questions([], [0.1] * 20)) == 17  # 0.85 * 20 = 17 exactly


def test_one_uncovered_question_moves_the_rules_threshold_past_right_answers() -> None:
    # 20 uncovered questions: the floor (0.85) refuses 17, so three may be answered. Lifting one
    # uncovered question above the covered ones' probabilities makes the rule give up those.
    covered = [0.56, 0.57, 0.58, 0.9]
    before = questions(covered, [0.1] * 17 + [0.95, 0.96, 0.97])
    after = questions(covered, [0.1] * 16 + [0.6, 0.95, 0.96, 0.97])

    def chosen(qs: list[Judged]) -> float:
        return pick_threshold(
            [q.probability for q in qs], [q.right for q in qs], [q.covered for q in qs]
        )[1]

    assert chosen(before) < 0.56 and curve(before, [chosen(before)])[0].right == 4
    assert chosen(after) > 0.6 and curve(after, [chosen(after)])[0].right == 1


def test_a_well_separated_set_pins_the_threshold_down() -> None:
    qs = questions([0.9] * 30, [0.1] * 30)
    low, mid, high = threshold_spread(qs, resamples=50)
    assert (
        low
        == mid
        == high
        == pick_threshold(
            [q.probability for q in qs], [True] * 30 + [False] * 30, [True] * 30 + [False] * 30
        )[1]
    )


def test_around_spans_every_hundredth_between_and_beyond_the_thresholds() -> None:
    assert around(0.51, 0.53) == [0.47, 0.48, 0.49, 0.5, 0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57]
