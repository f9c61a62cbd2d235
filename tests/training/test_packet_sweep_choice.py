"""training/packet_sweep.py chooses a packet by the rule the reader's threshold is chosen by."""

from __future__ import annotations

from training.packet_sweep import GRID, chosen

# The sweep's figures on the 253-question train split (docs/performance-answerer.md "The
# reader's packet (h5)"): answered right of 176, uncovered refused of 77, gold in packet.
MEASURED = {
    "base": (75, 66, 139),
    "f3": (79, 65, 143),
    "f4": (70, 69, 144),
    "f3-t4000": (77, 65, 146),
    "f3-k16": (76, 66, 143),
    "solo": (77, 65, 137),
    "d20": (83, 59, 135),
    "d50": (80, 61, 139),
}


def _scores(figures: dict[str, tuple[int, int, int]]) -> dict[str, dict[str, float]]:
    return {
        name: {"answerable": 176, "right": r, "uncovered": 77, "refused": u, "gold": g}
        for name, (r, u, g) in figures.items()
    }


def test_the_most_right_among_settings_refusing_the_floor_wins() -> None:
    # f3 has the largest right + refused (144) but refuses 65/77 < 0.85; of those refusing
    # 66 or more, f3-k16 answers the most right.
    assert chosen(_scores(MEASURED), GRID) == "f3-k16"


def test_below_the_floor_the_most_refusing_setting_wins() -> None:
    figures = {"base": (75, 60, 139), "f4": (70, 64, 144), "d20": (83, 59, 135)}
    assert chosen(_scores(figures), GRID) == "f4"


def test_equal_scores_fall_to_gold_in_packet_then_the_smaller_budget() -> None:
    assert chosen(_scores({"base": (75, 66, 139), "f3-k16": (75, 66, 143)}), GRID) == "f3-k16"
    assert chosen(_scores({"t6000": (75, 66, 139), "base": (75, 66, 139)}), GRID) == "base"
