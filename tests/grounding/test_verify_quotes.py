"""Quote-anchored claims: each quote must occur in a cited item, after normalising whitespace,
markup and typography only; a claim without a valid quote is dropped as `unquoted`."""

from __future__ import annotations

from grounding.answer import AnswerStatus
from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import quote_form, unknown_quotes, verify
from grounding.verification.quotes import occurs
from retrieval.chunks import Chunk
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

REDIRECTS = make_chunk(
    "Unlike `requests`, HTTPX does **not** follow redirects by default.\n"
    "You can enable it with\n`follow_redirects=True`.",
    path="redirects.md",
    heading_path=("Redirects",),
)
MOUNTS = make_chunk(
    "Route requests per scheme with mounts:\n\n"
    "```python\nmounts = {\n    'http://': httpx.HTTPTransport(proxy=URL),\n}\n```",
    path="mounts.md",
    heading_path=("Mounts",),
)
POOL = make_chunk(
    "- The pool holds at most 100 connections.\n"
    "- See the “Limits” section for [max_keepalive](limits.md).",
    path="pool.md",
    heading_path=("Pool",),
)
OTHER = make_chunk("Timeouts are 5 seconds, or 50 for reads.", path="timeouts.md")


def _packet(*chunks: Chunk) -> EvidencePacket:
    scope = make_scope("handbook")
    return pack("q", scope, "g", hits_of(*chunks), PackPolicy(neighbours=False), WordCounter())


PACKET = _packet(REDIRECTS, MOUNTS, POOL, OTHER)
E1, E2, E3, E4 = PACKET.items


def test_quote_matches_across_line_breaks_and_markup() -> None:
    assert occurs("HTTPX does not follow redirects by default.", E1)
    assert occurs("You can enable it with `follow_redirects=True`", E1)
    assert occurs("The pool holds at most 100 connections.", E3)  # the bullet is markup
    assert occurs('See the "Limits" section for max_keepalive', E3)  # curly quotes, a link


def test_quote_matches_code_laid_out_on_one_line() -> None:
    assert occurs("mounts = {'http://': httpx.HTTPTransport(proxy=URL)}", E2)
    assert occurs("mounts = { 'http://': httpx.HTTPTransport(proxy = URL), }", E2)


def test_quote_may_capitalise_its_first_letter_and_leave_text_out() -> None:
    assert occurs("Follow redirects by default", E1)
    assert occurs("Unlike requests, HTTPX ... follow redirects by default", E1)
    assert not occurs("follow redirects ... Unlike requests", E1)  # parts out of order


def test_quote_must_end_at_a_word_edge_and_keep_its_words() -> None:
    assert not occurs("or 5", E4)  # "or 50": 5 is not 50
    assert not occurs("HTTPX does follow redirects by default", E1)  # a word removed
    assert not occurs("the pool holds at most 10", E3)
    assert not occurs("...", E1) and not occurs("", E1)


def test_quote_form_changes_markup_and_whitespace_only() -> None:
    assert quote_form("**Note**:  use\n`httpx.Client()`") == "Note:use httpx.Client()"
    assert quote_form("café 100 True") == "café 100 True"


def test_claim_without_quotes_is_dropped_as_unquoted() -> None:
    result = verify(response(("The pool holds at most 100 connections.", ["E3"], [])), PACKET, str)
    assert result.status is AnswerStatus.NOT_FOUND
    (dropped,) = result.dropped
    assert (dropped.reason, dropped.detail) == (
        "unquoted",
        "the claim gives no quote of its evidence",
    )


def test_claim_with_one_quote_not_in_its_items_is_dropped_and_names_it() -> None:
    quotes = ["The pool holds at most 100 connections.", "The pool grows on demand."]
    result = verify(response(("The pool holds 100 connections.", ["E3"], quotes)), PACKET, str)
    (dropped,) = result.dropped
    assert dropped.reason == "unquoted"
    assert dropped.detail == "the quote 'The pool grows on demand.' is not in the cited E3"


def test_kept_claim_carries_its_quotes() -> None:
    quote = "HTTPX does **not** follow redirects by default."
    claim = ("HTTPX does not follow redirects by default.", ["E1"], [quote])
    result = verify(response(claim), PACKET, str)
    assert [c.quotes for c in result.claims] == [(quote,)]


def test_unknown_quotes_are_those_in_no_packet_item() -> None:
    reply = response(
        ("a", ["E1"], ["HTTPX does not follow redirects by default."]),
        ("b", ["E1"], ["The pool holds at most 100 connections.", "Invented text."]),
        ("c", ["E9"], ["Invented text.", "More invented text."]),
    )
    # A quote of another item is a wrong citation, dropped without regeneration; an invented one
    # is like an unknown id.
    assert unknown_quotes(reply, PACKET) == ("Invented text.", "More invented text.")
