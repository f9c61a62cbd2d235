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


def _kept_quoting_itself(quote: str, claim: str) -> bool:
    """The claim is kept quoting the whole of a one-item packet holding `quote` alone."""
    return bool(verify_quoting(one_item_packet(quote), claim, quote).claims)


def test_a_negation_in_code_keeps_none_of_the_prose() -> None:
    # The claim's `--no-lid` names an option; its "no" is no negation of the claim's "closes",
    # which the quote's "does not close" denies. Nor does a name keep a negation the quote
    # writes beside that very name ("``Lid.NEVER`` never closes the lid").
    flag = "Pass ``--no-lid``: the pot does not close the lid."
    assert not _kept_quoting_itself(flag, "Pass `--no-lid` and the pot closes the lid.")
    never = "``Lid.NEVER`` never closes the lid."
    assert not _kept_quoting_itself(never, "`Lid.NEVER` closes the lid.")
    assert _kept_quoting_itself(never, "`Lid.NEVER` never closes the lid.")


def test_a_name_the_quote_writes_holds_no_negation_of_the_quote() -> None:
    # The quote's own ``Lid.NEVER`` is a name: its "never" denies nothing the claim says.
    quote = "Set ``mode`` to ``Lid.NEVER`` to keep the lid open for good."
    assert _kept_quoting_itself(quote, "Setting `mode` to `Lid.NEVER` keeps the lid open for good.")


def test_none_in_code_is_a_value_and_a_negation_joined_by_underscore_a_name() -> None:
    # `None` names no option: the quote's "not `None`" stays its negation. `no_lid` is a name
    # as `--no-lid` is: no negation the claim adds.
    loop = "The pot keeps boiling while the lid is not ``None``."
    assert not _kept_quoting_itself(loop, "The pot keeps boiling while the lid is `None`.")
    flag = "Set ``no_lid`` to leave the pot open while it boils."
    assert _kept_quoting_itself(flag, "Setting `no_lid` leaves the pot open while it boils.")
