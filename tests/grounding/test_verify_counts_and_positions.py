"""Counts and positions a paraphrase writes in words: "the second step" against a numbered
list, "Firstly, ..." as a first way, a count that is the length of the claim's own list ("two
ports: 8000 and 8001"), and numbers joined in a run ("ports 8000 and 8001"). Made-up sentences,
no benchmark item."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Verification, verify
from grounding.verification.enumerations import list_items, self_counted
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response
from tests.grounding.support_checks import dropped, kept

STEPS = make_chunk(
    "To rotate the signing key:\n\n"
    "1. Generate a fresh key with `keytool new`.\n"
    "2. Upload the public half to the vault.\n"
    "3. Restart the gateway so it reads the new key.\n",
    path="rotate.md",
)
PACKET: EvidencePacket = pack(
    "q", make_scope("handbook"), "g", hits_of(STEPS), PackPolicy(neighbours=False), WordCounter()
)
LABEL = PACKET.items[0].label
RESTART = "3. Restart the gateway so it reads the new key."


def _verify(claim: str, quote: str) -> Verification:
    return verify(response((claim, [LABEL], [quote])), PACKET, str)


def test_a_numbered_item_is_read_at_its_position() -> None:
    assert _verify("The third step is to restart the gateway.", RESTART).claims
    assert _verify("In step 3 you restart the gateway so it reads the new key.", RESTART).claims
    wrong = _verify("The second step is to restart the gateway.", RESTART)
    assert not wrong.claims and "2nd" in wrong.dropped[0].detail


def test_first_and_second_are_positions_only_after_a_determiner() -> None:
    first = "1. Generate a fresh key with `keytool new`."
    assert _verify("The first step is to generate a fresh key with `keytool new`.", first).claims
    assert not _verify("The second step is to generate a fresh key.", first).claims
    # "First," opens a sentence and "seconds" is a unit: neither is a position.
    kept("First, generate a fresh key.", "Generate a fresh key before you restart.")
    kept("The gateway waits 30 seconds.", "The gateway waits 30 seconds before it restarts.")


def test_firstly_numbers_the_first_of_the_ways_a_text_gives() -> None:
    evidence = "There are two ways to rotate a key. Firstly, you can run `keytool new`."
    kept("The first way is to run `keytool new`.", evidence)
    assert "2nd" in dropped("The second way is to run `keytool new`.", evidence)


def test_a_count_of_the_claims_own_list_needs_no_number_in_the_evidence() -> None:
    evidence = "The exporter listens on ports 9100 and 9101; keep them open."
    kept("The exporter needs two ports open: 9100 and 9101.", evidence)
    assert "3" in dropped("The exporter needs three ports open: 9100 and 9101.", evidence)
    roles = "The roles are `reader`, `writer` and `admin`, set per project."
    kept("There are three roles: `reader`, `writer` and `admin`.", roles)
    kept("The three roles `reader`, `writer` and `admin` are set per project.", roles)
    assert dropped("The four roles `reader`, `writer` and `admin` are set per project.", roles)


def test_a_count_the_evidence_gives_otherwise_is_not_the_lists_own() -> None:
    evidence = "There are four stages of a build. These are fetch, compile, test and publish."
    kept("A build has four stages: fetch, compile, test and publish.", evidence)
    assert dropped("A build has three stages: fetch, compile and test.", evidence)


def test_list_items_keep_an_and_of_their_own_before_a_final_comma() -> None:
    assert list_items("lower latency, less CPU and memory, and fewer round-trips") == [
        "lower latency",
        "less CPU and memory",
        "fewer round-trips",
    ]
    assert list_items("9100 and 9101") == ["9100", "9101"]
    assert list_items("a, b or c") == ["a", "b", "c"]
    assert self_counted("It has one stage: fetch.", "") == frozenset()  # a list of one


def test_numbers_joined_in_a_run_share_the_words_around_them() -> None:
    evidence = "The exporter listens on ports 9100 and 9101."
    kept("Keep the exporter's ports free: 9100 and 9101.", evidence)
    # Each number still has to be there.
    assert "9102" in dropped("It uses ports 9100 and 9102 for the exporter.", evidence)
