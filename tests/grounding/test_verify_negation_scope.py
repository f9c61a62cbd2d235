"""Where a negation sits: a claim's "not" must deny what its quote's "not" denies. "keeps the
key and not the token" states "keeps the key", so "does not keep the key" is an added negation;
and a claim that writes a contrast itself ("Unlike the cache, the log does not ...") negates
what it states, not what the quote's own "unlike" sets aside; what "instead of" sets aside
is denied as by a "not". Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept, one_item_packet, verify_quoting

SET_AGAINST = "The session keeps the signing key and not the raw token of the user."


def test_a_negation_put_on_the_words_the_quote_states_is_dropped() -> None:
    assert "not" in dropped("The session does not keep the signing key.", SET_AGAINST)


def test_a_negation_on_the_words_the_quote_denies_is_kept() -> None:
    kept("The session does not keep the raw token of the user.", SET_AGAINST)
    kept("The session keeps the signing key, not the raw token.", SET_AGAINST)


UNLIKE = "Unlike the memory cache it survives restarts, and can be shared by several workers."


def test_a_claim_with_its_own_contrast_may_not_deny_what_the_quote_states() -> None:
    claim = "Unlike the memory cache, the file cache does not survive restarts."
    assert "not" in dropped(claim, UNLIKE)


def test_a_negation_restating_the_quotes_contrast_is_kept() -> None:
    evidence = "Pass the token on the client, rather than passed to each request method."
    kept("Pass the token on the client, not to each request method.", evidence)


SET_ASIDE = "The formatter prints the label of the field instead of its internal name."
SET_ASIDE_PACKET = one_item_packet(f"# Fields\n\n{SET_ASIDE} Labels may be translated.\n")


def _kept_quoting(claim: str) -> bool:
    return bool(verify_quoting(SET_ASIDE_PACKET, claim, SET_ASIDE).claims)


def test_a_claim_stating_what_instead_of_sets_aside_is_dropped() -> None:
    result = verify_quoting(
        SET_ASIDE_PACKET, "The formatter prints the field's internal name.", SET_ASIDE
    )
    assert not result.claims
    assert "negates 'internal'" in result.dropped[0].detail


def test_a_claim_keeping_what_instead_of_sets_aside_is_kept() -> None:
    assert _kept_quoting("The formatter prints the field's label, not its internal name.")
    assert _kept_quoting("The formatter prints the field's label rather than its internal name.")
    assert _kept_quoting("Instead of its internal name, the formatter prints the field's label.")


CACHES = "The proxy caches every response of the upstream server for ten minutes."


def test_a_negating_verb_the_quote_lacks_is_an_added_negation() -> None:
    assert "not" in dropped("The proxy skips caching responses of the upstream server.", CACHES)


def test_a_negating_verb_the_quote_says_or_negates_is_kept() -> None:
    evidence = "The proxy skips caching for private responses, and does not cache errors."
    kept("The proxy skips caching for private responses.", evidence)
    kept("The proxy fails to cache errors; it does not cache them.", evidence)


def test_stop_and_fail_deny_only_a_verb_after_them() -> None:
    # "stops the worker" ends it and "the request fails with an error" errs: neither says
    # "does not" of a verb, as "stops caching" and "fails to cache" do.
    ends = "On a timeout the proxy shuts down the worker; a 404 raises an error for the request."
    kept("On a timeout the proxy stops the worker.", ends)
    kept("The request fails with an error on a 404.", ends)
    assert "not" in dropped("The proxy stops caching responses of the upstream server.", CACHES)
    assert "not" in dropped("The proxy fails to cache responses of the upstream server.", CACHES)
