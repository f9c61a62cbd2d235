"""Lists as reST and Django's docs write them: items numbered by "#.", counted and read at their
positions as "1." items are, a paragraph not indented under an item ending the list. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import one_item_packet, verify_quoting

AUTO = one_item_packet(
    "The scheduler looks for jobs in this order:\n\n"
    "#. The folders listed in ``JOB_PATHS``, the first one winning.\n\n"
    "   Each folder is read once.\n\n"
    "#. Then, a ``jobs`` folder inside each installed plugin.\n"
    "#. Finally, the built-in jobs are used as a fallback.\n\n"
    "A job found twice is run once.\n\n"
    "#. An unrelated list starts again.\n",
    path="guide.txt",
)
PLUGIN = "Then, a ``jobs`` folder inside each installed plugin."
FALLBACK = "Finally, the built-in jobs are used as a fallback."
FOLDERS = "The folders listed in ``JOB_PATHS``, the first one winning."


def test_hash_numbered_items_have_positions_and_a_length() -> None:
    assert verify_quoting(
        AUTO, "The second place is a `jobs` folder inside each installed plugin.", PLUGIN
    ).claims
    assert not verify_quoting(
        AUTO, "The third place is a `jobs` folder inside each installed plugin.", PLUGIN
    ).claims
    claim = "The scheduler looks for jobs in {} places, the first being the folders in `JOB_PATHS`."
    assert verify_quoting(AUTO, claim.format("three"), FOLDERS, FALLBACK).claims
    assert not verify_quoting(AUTO, claim.format("four"), FOLDERS, FALLBACK).claims
    # The "#." after a paragraph of its own opens a new list: it is item 1, not 4.
    assert not verify_quoting(
        AUTO, "The fourth place holds an unrelated list.", "An unrelated list starts again."
    ).claims
