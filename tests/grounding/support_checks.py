"""What the verifier says of one made-up claim against made-up evidence, for the tests that
pin what a number means: kept (no problem) or dropped (its problem); and the one-item packet a
claim quoting a made-up document cites, for the tests that need where a quote sits in it."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Support, Verification, check, support_problem, verify
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response


def kept(claim: str, evidence: str) -> None:
    problem = support_problem(claim, evidence)
    assert problem is None, problem


def dropped(claim: str, evidence: str) -> str:
    problem = support_problem(claim, evidence)
    assert problem is not None, f"kept: {claim!r}"
    return problem


def other_language_problem(claim: str, evidence: str) -> str | None:
    """The problem of a claim in another language than its evidence, read as one."""
    verdict = check(claim, Support(evidence, evidence))
    assert verdict.other_language, claim
    return verdict.problem


def other_language_dropped(claim: str, evidence: str) -> str:
    """The problem of a claim in another language than its evidence, which must have one."""
    problem = other_language_problem(claim, evidence)
    assert problem is not None, f"kept: {claim!r}"
    return problem


def one_item_packet(text: str, path: str = "guide.md") -> EvidencePacket:
    """A packet of one made-up item with no neighbours, for claims that quote its text."""
    chunk = make_chunk(text, path=path)
    policy = PackPolicy(neighbours=False)
    return pack("q", make_scope("handbook"), "g", hits_of(chunk), policy, WordCounter())


def verify_quoting(packet: EvidencePacket, claim: str, *quotes: str) -> Verification:
    """What the verifier keeps of one claim citing the packet's first item with `quotes`."""
    return verify(response((claim, [packet.items[0].label], list(quotes))), packet, str)
