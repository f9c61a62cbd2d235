"""The claim is checked against its quotes, not the whole chunk (issue 9): numbers in digits and
words, defaults and booleans, identifiers with code layout normalised, negation both ways, and a
claim in another language checked on what can be checked."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.verification import Support, Verification, check, verify
from retrieval.chunks import Chunk
from tests.grounding.fakes import WordCounter, hits_of, make_chunk, make_scope, response

REDIRECTS = make_chunk(
    "Unlike `requests`, HTTPX will not follow redirects by default. Set "
    "`follow_redirects=True` to follow them.\n\n`follow_redirects` defaults to False.",
    path="redirects.md",
)
POOL = make_chunk(
    "- `max_connections`, maximum number of allowable connections. (Defaults 100)\n\n"
    "```python\nlimits = httpx.Limits(max_keepalive_connections=5, max_connections=10)\n```",
    path="pool.md",
)
ROTATE = make_chunk(
    "Follow these four steps to rotate the signing secret:\n\n1. Generate.\n2. Store.\n"
    "3. Restart.\n4. Revoke.",
    path="rotate.md",
)
HTTP2 = make_chunk(
    "HTTP/2 support is disabled by default. You can enable it with `http2=True`.\n\n"
    "Note that `verify=False` disables SSL verification.",
    path="http2.md",
)
HEADERS = make_chunk(
    "Headers are stored in a `dict`-based structure that is case-insensitive.", path="headers.md"
)
MOUNTS = make_chunk(
    "To route all traffic through a proxy, use mounts:\n\n```python\nmounts = {\n"
    '    "all://": httpx.HTTPTransport(proxy="http://localhost:8030"),\n}\n```',
    path="mounts.md",
)
SESSIONS = make_chunk(
    "The session cookie age defaults to 259200 seconds. The client doesn't verify hostnames "
    "when SSL is off. HTTPX retries failed connections when `retries=3` is set.",
    path="sessions.md",
)
TIMEOUTS = make_chunk("The default timeout is five seconds.", path="timeouts.md")
CHUNKS = (REDIRECTS, POOL, ROTATE, HTTP2, HEADERS, MOUNTS, SESSIONS, TIMEOUTS)


def _packet(*chunks: Chunk) -> EvidencePacket:
    scope = make_scope("handbook")
    return pack("q", scope, "g", hits_of(*chunks), PackPolicy(neighbours=False), WordCounter())


PACKET = _packet(*CHUNKS)
LABEL = {item.chunk.path: item.label for item in PACKET.items}


def _verify(text: str, path: str, *quotes: str) -> Verification:
    return verify(response((text, [LABEL[path]], list(quotes))), PACKET, str)


def _kept(text: str, path: str, *quotes: str) -> bool:
    result = _verify(text, path, *quotes)
    return [c.text for c in result.claims] == [text]


def _dropped(text: str, path: str, *quotes: str) -> str:
    (dropped,) = _verify(text, path, *quotes).dropped
    assert dropped.reason == "unsupported", dropped
    return dropped.detail


def test_a_negation_the_quote_has_and_the_claim_drops_is_caught() -> None:
    quote = "HTTPX will not follow redirects by default."
    claim = "By default, HTTPX will follow redirects for all requests."
    assert "negates 'follow'" in _dropped(claim, "redirects.md", quote)
    # A quote cut to leave the "not" out still stands in its clause.
    assert "negates" in _dropped(claim, "redirects.md", "follow redirects by default")
    assert _kept("HTTPX does not follow redirects by default.", "redirects.md", quote)


def test_a_negation_in_a_contraction_is_read_both_ways() -> None:
    quote = "The client doesn't verify hostnames when SSL is off."
    assert "negates" in _dropped("The client verifies hostnames.", "sessions.md", quote)
    retries = "HTTPX retries failed connections when `retries=3` is set."
    assert "'not'" in _dropped("HTTPX won't retry failed connections.", "sessions.md", retries)


def test_a_condition_with_a_negation_restating_a_default_is_kept() -> None:
    quote = "The session cookie age defaults to 259200 seconds."
    claim = "If you haven't changed it, the session cookie age is 259200 seconds."
    assert _kept(claim, "sessions.md", quote)


def test_a_number_is_checked_against_the_quote_not_an_example_elsewhere() -> None:
    quote = "`max_connections`, maximum number of allowable connections. (Defaults 100)"
    claim = "By default a client allows at most 10 connections."
    assert "number 10" in _dropped(claim, "pool.md", quote)
    assert _kept("By default a client allows at most 100 connections.", "pool.md", quote)


def test_a_count_in_words_is_a_number() -> None:
    quote = "Follow these four steps to rotate the signing secret:"
    assert "number 3" in _dropped(
        "Rotating the signing secret takes three steps.", "rotate.md", quote
    )
    assert _kept("Rotating the signing secret takes 4 steps.", "rotate.md", quote)


def test_a_swapped_boolean_or_default_is_caught() -> None:
    assert "'tru'" in _dropped(
        "`follow_redirects` defaults to True.",
        "redirects.md",
        "`follow_redirects` defaults to False.",
    )
    disabled = "HTTP/2 support is disabled by default."
    assert "'enabl'" in _dropped("HTTP/2 support is enabled by default.", "http2.md", disabled)


def test_note_is_no_negation_and_code_before_a_hyphen_is_no_flag() -> None:
    note = "Note that `verify=False` disables SSL verification."
    assert _kept("Note that `verify=False` disables SSL verification.", "http2.md", note)
    quote = "Headers are stored in a `dict`-based structure that is case-insensitive."
    assert _kept("Headers live in a `dict`-based, case-insensitive structure.", "headers.md", quote)


def test_code_laid_out_on_one_line_matches_the_documents_layout() -> None:
    code = 'mounts = {"all://": httpx.HTTPTransport(proxy="http://localhost:8030")}'
    claim = f"To route all traffic through a proxy, use mounts: `{code}`."
    assert _kept(claim, "mounts.md", "To route all traffic through a proxy, use mounts:", code)


def test_a_claim_in_another_language_is_checked_on_numbers_and_shows_its_quote() -> None:
    quote = "The default timeout is five seconds."
    result = _verify("El tiempo de espera predeterminado es de 5 segundos.", "timeouts.md", quote)
    (claim,) = result.claims
    assert claim.other_language and claim.quotes == (quote,)
    assert "number 10" in _dropped("El tiempo de espera es de 10 segundos.", "timeouts.md", quote)
    assert "negation" in _dropped("El tiempo de espera no es de 5 segundos.", "timeouts.md", quote)


def test_accented_names_do_not_make_english_evidence_another_language() -> None:
    evidence = "The Krasiński Palace Garden was remodelled by Józef Szanior in the 19th century."
    claim = "The Krasiński Palace Garden was not remodelled by Józef Szanior."
    verdict = check(claim, Support(evidence, evidence))
    assert not verdict.other_language
    assert verdict.problem is not None and "'not'" in verdict.problem
