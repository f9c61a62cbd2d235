"""A summary of options the quotes describe one by one: a negation word inside the claim's code
is a name (`Lid.NEVER`), which adds no negation and keeps the one of the quote describing that
option ("Never close the lid."); a list's last item may carry a clause of its own ("..., and
`Lid.AUTO`, which closes it ...") without counting as one more item. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, one_item_packet, verify_quoting

LID = (
    "# Lid modes\n\n"
    "Defaults to ``Lid.AUTO``.\n\n"
    "- ``Lid.ALWAYS``: Always close the lid.\n"
    "- ``Lid.NEVER``: Never close the lid.\n"
    "- ``Lid.AUTO``: Close the lid when the ``_cool`` flag is set.\n"
)
QUOTES = (
    "Defaults to ``Lid.AUTO``.",
    "Always close the lid.",
    "Never close the lid.",
    "Close the lid when the ``_cool`` flag is set.",
)
SUMMARY = (
    "The lid has {} modes: `Lid.ALWAYS`, `Lid.NEVER`, and the default `Lid.AUTO`, "
    "which closes it only with the `_cool` flag."
)


def test_a_summary_naming_each_option_is_kept() -> None:
    packet = one_item_packet(LID)
    verification = verify_quoting(packet, SUMMARY.format("three"), *QUOTES)
    assert verification.claims, verification.dropped


def test_a_wrong_count_is_still_dropped() -> None:
    packet = one_item_packet(LID)
    assert not verify_quoting(packet, SUMMARY.format("four"), *QUOTES).claims


COVER = ".. attribute:: Cover.NEVER\n\n   Never close the lid.\n\n   The pot then stays open.\n"


def test_a_negation_in_code_adds_none() -> None:
    packet = one_item_packet(COVER)
    claim = "With `Cover.NEVER` the pot stays open."
    verification = verify_quoting(packet, claim, "Never close the lid.", "The pot then stays open.")
    assert verification.claims, verification.dropped
    dropped("With `Cover.SHUT` the pot does not stay open.", "``Cover.SHUT``: the pot stays open.")
