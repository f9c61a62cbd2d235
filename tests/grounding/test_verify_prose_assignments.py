"""An assignment a claim writes as code (`KETTLE_TIMER = True`) of evidence that says it in prose
("set the KETTLE_TIMER setting to True"): the name and the value the sentence sets, not any
value. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

SET = (
    "To keep the water warm, set the :setting:`KETTLE_TIMER` setting to ``True``. "
    "Set ``pot.size`` to ``2`` for two cups."
)


def test_an_assignment_the_evidence_states_in_prose_is_kept() -> None:
    for claim in (
        "To keep the water warm, set `KETTLE_TIMER = True`.",
        "For two cups, write `pot.size = 2`.",
    ):
        kept(claim, SET)


def test_another_value_or_name_is_dropped() -> None:
    for claim in (
        "To keep the water warm, set `KETTLE_TIMER = False`.",
        "To keep the water warm, set `KETTLE_WARM = True`.",
        "For two cups, write `pot.size = 3`.",
    ):
        assert "not in the cited evidence" in dropped(claim, SET), claim


PASSIVE = (
    "If :setting:`KETTLE_TIMER` is set to ``True``, the water stays warm. "
    "When ``pot.size`` is ``2``, it pours two cups."
)


def test_an_assignment_the_evidence_states_in_the_passive_is_kept() -> None:
    for claim in (
        "With `KETTLE_TIMER = True` the water stays warm.",
        "With `pot.size = 2`, it pours two cups.",
    ):
        kept(claim, PASSIVE)


def test_another_value_of_the_passive_is_dropped() -> None:
    for claim in (
        "With `KETTLE_TIMER = False` the water stays warm.",
        "With `pot.size = 3`, it pours two cups.",
    ):
        assert "not in the cited evidence" in dropped(claim, PASSIVE), claim
