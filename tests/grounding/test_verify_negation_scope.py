"""Where a negation sits: a claim's "not" must deny what its quote's "not" denies. "keeps the
key and not the token" states "keeps the key", so "does not keep the key" is an added negation;
and a claim that writes a contrast itself ("Unlike the cache, the log does not ...") negates
what it states, not what the quote's own "unlike" sets aside. Made-up sentences, no benchmark
item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

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
