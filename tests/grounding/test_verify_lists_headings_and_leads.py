"""Shapes a strong model writes that the verifier misread: a count of a numbered list ("takes
three steps" of items "1." to "3."), a count of a list that follows its noun past code or a
comma, a port given in a URL, an acronym that is a part of an identifier, a negation said with
"except" or "until", a "Not ...:" lead answering a yes/no question, "not X" for the evidence's
"rather than X" when more words follow, and a heading merged with the text under it. Made-up
sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept, one_item_packet, verify_quoting

STEPS = one_item_packet(
    "To rotate the signing key:\n\n"
    "1. Generate a fresh key with `keytool new`.\n"
    "2. Upload the public half to the vault.\n"
    "3. Restart the gateway so it reads the new key.\n"
)
FIRST = "1. Generate a fresh key with `keytool new`."
LAST = "3. Restart the gateway so it reads the new key."


def test_a_count_of_a_numbered_list_is_its_last_number() -> None:
    claim = (
        "The rotation takes {} steps, the first of which is to generate a fresh key with `keytool`."
    )
    assert verify_quoting(STEPS, claim.format("three"), FIRST, LAST).claims
    for wrong in ("two", "four"):
        assert not verify_quoting(STEPS, claim.format(wrong), FIRST, LAST).claims
    longer = one_item_packet(
        "To rotate the signing key:\n\n1. Generate a fresh key.\n2. Upload it.\n"
        "3. Restart the gateway.\n4. Delete the old key.\n"
    )
    # The quoted "3." is a position in a list of four: it counts no steps.
    shorter = verify_quoting(
        longer, claim.format("three"), "1. Generate a fresh key.", "3. Restart the gateway."
    )
    assert not shorter.claims


def test_a_count_of_its_own_list_past_code_or_a_comma() -> None:
    evidence = "`vault.Client()` does not accept the `region`, `timeout` and `retries` settings."
    claim = (
        "There are {} settings `vault.Client()` does not accept: `region`, `timeout` and `retries`."
    )
    kept(claim.format("three"), evidence)
    assert "2" in dropped(claim.format("two"), evidence)
    loggers = "Output comes from the `vault` logger and the `vault.http` logger, set separately."
    kept("There are two loggers to set, `vault` and `vault.http`, each on its own.", loggers)
    ports = "The gateway uses port 9100, the exporter port 9101, the admin page port 9102."
    kept("The setup uses three ports, on 9100, 9101 and 9102.", ports)
    assert "2" in dropped("The setup uses two ports, on 9100, 9101 and 9102.", ports)


def test_a_port_given_in_a_url_is_a_number_of_the_evidence() -> None:
    evidence = "Send staging traffic through the proxy at http://localhost:8031 for now."
    kept("Staging traffic goes through the proxy on port 8031.", evidence)
    assert "8032" in dropped("Staging traffic goes through the proxy on port 8032.", evidence)


def test_an_acronym_may_be_a_part_of_an_identifier() -> None:
    evidence = "The `connect_tcp.started` event comes before `start_tls.started` in the log."
    kept("In the log the TCP connect event comes before the TLS one.", evidence)
    assert "UDP" in dropped("In the log the UDP connect event comes before the TLS one.", evidence)


def test_a_negation_said_with_except_or_until() -> None:
    quote = "Don't proxy requests to the intranet host."
    proxy = one_item_packet(f"Route every request through the proxy. {quote}")
    said = "The client will proxy every request except requests to the intranet host."
    assert verify_quoting(proxy, said, quote).claims
    twin = "The client will proxy every request, requests to the intranet host too."
    assert not verify_quoting(proxy, twin, quote).claims
    quote = "The loop keeps reading while the cursor is not `None`."
    loop = one_item_packet(quote)
    assert verify_quoting(loop, "The loop keeps reading until the cursor is `None`.", quote).claims
    assert not verify_quoting(
        loop, "The loop keeps reading while the cursor is `None`.", quote
    ).claims


def test_a_not_lead_answering_a_question_is_the_negation_its_claim_goes_on_to_state() -> None:
    evidence = "Per-call tokens are not supported. Set the token on the shared session instead."
    kept("Not on a shared session: per-call tokens aren't supported there.", evidence)
    plain = "Per-call tokens are supported on a shared session."
    assert "not" in dropped("Not on a shared session: per-call tokens are supported there.", plain)


def test_only_the_not_of_a_not_lead_is_left_out_its_other_words_are_checked() -> None:
    evidence = "The uploader retries a chunk 3 times. It does not retry a chunk the server refused."
    said = "it does not retry a chunk the server refused."
    kept(f"Not after 3 retries: {said}", evidence)
    assert "5" in dropped(f"Not after 5 retries: {said}", evidence)


def test_not_x_for_rather_than_x_with_more_words_after_it() -> None:
    evidence = "Cookies should be set on the session rather than on a per-call basis."
    kept("Cookies should be set on the session, not per call with each request.", evidence)
    assert dropped("Cookies should not be set on the session.", evidence)


def test_a_heading_merged_with_the_text_under_it() -> None:
    packet = one_item_packet(
        "## Routing\n\nRoutes are read in order.\n\n### Complex configuration example\n\n"
        "All traffic goes through a relay by default.\n"
    )
    quote = "All traffic goes through a relay by default."
    claim = "The complex configuration example sends all traffic through a relay by default."
    assert verify_quoting(packet, claim, quote).claims
    # Only the heading right above the quote is its own: "Routing" is another section's.
    assert not verify_quoting(
        packet, "The routing table sends all traffic through a relay.", quote
    ).claims
