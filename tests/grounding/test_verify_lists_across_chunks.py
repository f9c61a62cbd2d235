"""A numbered list cut by a chunk boundary is as long as its items in the packet's chunks next
to the quoted one in the same file: "four steps" of "1." to "3." whose "4." opens the next chunk.
Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Verification, verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

FIRST = "To ship the service:\n\n1. Build the image.\n2. Push the image.\n3. Apply the manifest."
REST = "4. Watch the rollout until every pod is ready.\n\nA rollout takes a few minutes."
BUILD = "Build the image."
WATCH = "Watch the rollout until every pod is ready."


def _packet(first_path: str = "ship.md", rest: str = REST, gap: int = 1) -> EvidencePacket:
    head = make_chunk(FIRST, path=first_path, start_line=10)
    tail = make_chunk(rest, path="ship.md", start_line=head.end_line + gap)
    policy = PackPolicy(neighbours=False)
    return pack("q", make_scope("handbook"), "g", hits_of(head, tail), policy, WordCounter())


def _quoting(packet: EvidencePacket, claim: str, quote: str, item: int = 0) -> Verification:
    quotes = [quote] if item else ["To ship the service:", quote]
    return verify(response((claim, [packet.items[item].label], quotes)), packet, str)


SHIP = "Shipping the service takes {} steps, the first being to build the image."


def test_a_list_continued_in_the_next_chunk_counts_its_items_there() -> None:
    assert _quoting(_packet(), SHIP.format("four"), BUILD).claims
    assert not _quoting(_packet(), SHIP.format("three"), BUILD).claims
    # A blank line the chunker left out between the two chunks parts no list.
    assert _quoting(_packet(gap=2), SHIP.format("four"), BUILD).claims


def test_a_list_continued_from_the_chunk_before_counts_its_items_there() -> None:
    claim = "The last of the four steps is to watch the rollout until every pod is ready."
    assert _quoting(_packet(), claim, WATCH, item=1).claims


def test_only_the_same_file_right_after_and_the_next_number_continue_a_list() -> None:
    # Another file, a chunk further down the file, a list starting again at "1.": three steps.
    for packet in (
        _packet(first_path="other.md"),
        _packet(gap=5),
        _packet(rest=REST.replace("4.", "1.")),
    ):
        assert _quoting(packet, SHIP.format("three"), BUILD).claims
        assert not _quoting(packet, SHIP.format("four"), BUILD).claims
