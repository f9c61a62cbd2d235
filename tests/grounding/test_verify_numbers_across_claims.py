"""A number an answer has already quoted: a claim may restate a number that an earlier kept
claim quoted from an item this claim also cites ("... allows 100 connections." then "To allow
more than 100, raise `max_conns`."), but not one that is in no kept claim's quote nor its own,
nor one quoted from an item it does not cite. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Verification, verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

POOL = make_chunk(
    "- `max_conns`, the most connections the pool opens. (Default 100)\n\n"
    "Raise `max_conns` when requests wait for a free connection.\n\n"
    "The example below uses 10 connections.",
    path="pool.md",
)
OTHER = make_chunk("Raise `max_conns` when requests wait for a free connection.", path="tune.md")
PACKET: EvidencePacket = pack(
    "q",
    make_scope("handbook"),
    "g",
    hits_of(POOL, OTHER),
    PackPolicy(neighbours=False),
    WordCounter(),
)
LABEL = {item.chunk.path: item.label for item in PACKET.items}
FIRST = (
    "By default the pool opens at most 100 connections.",
    [LABEL["pool.md"]],
    ["`max_conns`, the most connections the pool opens. (Default 100)"],
)
RAISE = "Raise `max_conns` when requests wait for a free connection."


def _kept(result: Verification) -> list[str]:
    return [claim.text for claim in result.claims]


def test_a_number_an_earlier_kept_claim_quoted_from_a_cited_item_supports_a_later_claim() -> None:
    later = "When requests wait for a free connection, raise `max_conns` above 100."
    result = verify(response(FIRST, (later, [LABEL["pool.md"]], [RAISE])), PACKET, str)
    assert _kept(result) == [FIRST[0], later]


def test_without_that_claim_or_from_another_item_the_number_is_unsupported() -> None:
    later = "When requests wait for a free connection, raise `max_conns` above 100."
    alone = verify(response((later, [LABEL["pool.md"]], [RAISE])), PACKET, str)
    assert "number 100" in alone.dropped[0].detail
    elsewhere = verify(response(FIRST, (later, [LABEL["tune.md"]], [RAISE])), PACKET, str)
    assert _kept(elsewhere) == [FIRST[0]]
    # 10 is in the item, but no kept claim quoted it.
    wrong = "When requests wait for a free connection, raise `max_conns` above 10."
    result = verify(response(FIRST, (wrong, [LABEL["pool.md"]], [RAISE])), PACKET, str)
    assert _kept(result) == [FIRST[0]] and "number 10" in result.dropped[0].detail


def test_the_claim_must_come_after_the_one_that_quoted_the_number() -> None:
    later = "When requests wait for a free connection, raise `max_conns` above 100."
    result = verify(response((later, [LABEL["pool.md"]], [RAISE]), FIRST), PACKET, str)
    assert _kept(result) == [FIRST[0]]  # as a streamed answer, claim by claim, would
