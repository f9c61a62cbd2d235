"""Steps numbered on one line ("1. Fill the kettle. 2. Switch it on.") are the claim's own list:
their markers are positions, not numbers the evidence must hold; a number the steps state is
still checked. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

KETTLE = (
    "Fill the kettle with fresh water before you switch it on. "
    "Switch the kettle on and wait until it clicks off after about 3 minutes."
)


def test_inline_step_markers_are_not_numbers_of_the_claim() -> None:
    for claim in (
        "1. Fill the kettle with fresh water. 2. Switch the kettle on and wait until it clicks.",
        "You should 1. fill the kettle with water, then 2. switch it on.",
        "1) Fill the kettle with fresh water. 2) Switch it on. 3) Wait until it clicks off.",
    ):
        kept(claim, KETTLE)


def test_a_number_inside_the_steps_is_still_checked() -> None:
    claim = "1. Fill the kettle with fresh water. 2. Switch it on and wait about 5 minutes."
    assert "5" in dropped(claim, KETTLE)


def test_markers_out_of_order_are_numbers() -> None:
    # Not a run from 1: "2." and "4." are read as the numbers they are.
    assert "4" in dropped("2. Fill the kettle with fresh water. 4. Switch it on.", KETTLE)
