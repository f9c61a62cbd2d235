"""A negated wish in a condition ("If you don't want the proxy used, pass ...") states what the
reader is after, not a negation the evidence must hold. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

DIRECT = "Pass `use_env=False` and the job is sent straight to the worker."


def test_a_negated_wish_in_a_condition_is_kept() -> None:
    kept(
        "If you don't want the queue used, pass `use_env=False`: the job goes to the worker.",
        DIRECT,
    )
    kept(
        "If you do not need the queue, pass `use_env=False` and the job is sent to the worker.",
        DIRECT,
    )


def test_other_negations_in_a_condition_are_still_checked() -> None:
    dropped("If you don't pass `use_env=False`, the job is not sent to the worker.", DIRECT)
    dropped("The job is not sent to the worker if you pass `use_env=False`.", DIRECT)
