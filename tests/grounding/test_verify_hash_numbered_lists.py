"""Lists as reST and Django's docs write them: items numbered by "#.", counted and read at their
positions as "1." items are, a paragraph not indented under an item ending the list. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Verification, verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response


def _packet(text: str) -> EvidencePacket:
    chunk = make_chunk(text, path="guide.txt")
    policy = PackPolicy(neighbours=False)
    return pack("q", make_scope("handbook"), "g", hits_of(chunk), policy, WordCounter())


def _verify(packet: EvidencePacket, claim: str, *quotes: str) -> Verification:
    return verify(response((claim, [packet.items[0].label], list(quotes))), packet, str)


AUTO = _packet(
    "The scheduler looks for jobs in this order:\n\n"
    "#. The folders listed in ``JOB_PATHS``, the first one winning.\n\n"
    "   Each folder is read once.\n\n"
    "#. Then, a ``jobs`` folder inside each installed plugin.\n"
    "#. Finally, the built-in jobs are used as a fallback.\n\n"
    "A job found twice is run once.\n\n"
    "#. An unrelated list starts again.\n"
)
PLUGIN = "Then, a ``jobs`` folder inside each installed plugin."
FALLBACK = "Finally, the built-in jobs are used as a fallback."
FOLDERS = "The folders listed in ``JOB_PATHS``, the first one winning."


def test_hash_numbered_items_have_positions_and_a_length() -> None:
    assert _verify(
        AUTO, "The second place is a `jobs` folder inside each installed plugin.", PLUGIN
    ).claims
    assert not _verify(
        AUTO, "The third place is a `jobs` folder inside each installed plugin.", PLUGIN
    ).claims
    claim = "The scheduler looks for jobs in {} places, the first being the folders in `JOB_PATHS`."
    assert _verify(AUTO, claim.format("three"), FOLDERS, FALLBACK).claims
    assert not _verify(AUTO, claim.format("four"), FOLDERS, FALLBACK).claims
    # The "#." after a paragraph of its own opens a new list: it is item 1, not 4.
    assert not _verify(
        AUTO, "The fourth place holds an unrelated list.", "An unrelated list starts again."
    ).claims
