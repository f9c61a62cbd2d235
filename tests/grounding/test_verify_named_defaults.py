"""A default the evidence names right after its value: "If true (the default), ..." states true
as the default as "the default is true" does, so a claim giving it is kept and one giving the
other value is dropped. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

FLAGS = (
    "- ``glaze``: If true (the default), a shine coat is applied.\n"
    "- ``stack``: If true (the default is ``False``), pots are stacked in the kiln."
)


def test_a_value_named_the_default_is_the_default() -> None:
    kept("`glaze` is true by default, so a shine coat is applied.", FLAGS)
    kept("`glaze` is true by default, while `stack` defaults to `False`.", FLAGS)


def test_the_other_value_as_the_default_is_dropped() -> None:
    dropped("`glaze` is false by default, so no shine coat is applied.", FLAGS)
    dropped(
        "`stack` defaults to `True`, so pots are stacked in the kiln.",
        "- ``stack``: If true (the default is ``False``), pots are stacked in the kiln.",
    )
