"""A bare name a claim passes where an example passes something else (`open(path, "rb")` of
``open(kettle.__file__, "rb")``) is the reader's placeholder for that argument; keywords,
values and literals are still matched as written. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification import Support, check

EXAMPLE = """Pour from an open kettle::

    >>> with kettles.pour("TEA", "https://kettle.example") as k:
    ...     for cup in k.cups():
    ...         print(cup)
    >>> k.close(timeout=10)
"""
QUOTED = 'with kettles.pour("TEA","https://kettle.example")as k:\n\nfor cup in k.cups():'


def _problem(claim: str) -> str | None:
    return check(claim, Support(QUOTED, EXAMPLE)).problem


def test_a_placeholder_for_an_argument_is_kept() -> None:
    for claim in (
        'Pour with `with kettles.pour("TEA", url) as k: for cup in k.cups(): print(cup)`.',
        'Pour with `kettles.pour("TEA", url)` from an open kettle.',
        "Pour with `kettles.pour(kind, url)` from an open kettle.",
    ):
        assert _problem(claim) is None, claim


def test_keywords_values_and_literals_are_still_matched_as_written() -> None:
    for claim in (
        'Pour with `kettles.pour("COFFEE", url)` from an open kettle.',
        "Pour, then `k.close(timeout=5)` the open kettle.",
        "Pour, then `k.close(limit)` the open kettle.",
        'Pour with `kettles.pour("TEA", url, verify=False)` from an open kettle.',
        'Pour with `kettles.pour("TEA", True)` from an open kettle.',
    ):
        assert _problem(claim) is not None, claim
