"""Outside knowledge that shares its quote's words, and faithful shapes the verifier misread:
a claim that adds a case with "also", "as well", "too" or "including"; an "after" where the
quote's same words follow a "before"; an order or a scale turned around ("least ... most" of
"most ... least", "the last file" of "the first file"); a leading "Not ...:" that denies what
the quote states; a "Not ...:" lead or a "non-" prefix keeping the quote's negation; and the
tails of "you'll", "they're", "we've" read as words of their own. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from grounding.verification import verify
from tests.grounding.fakes import response
from tests.grounding.support_checks import dropped, kept, one_item_packet, verify_quoting

RETRIES = "The pool retries a request when the connection is refused, up to three times."
HOOK = "The audit hook runs after a job is fully queued, but before it is sent to a worker."


def test_a_claim_adding_a_case_its_quote_lacks_is_dropped() -> None:
    for claim in (
        "The pool also retries a request when the connection is refused.",
        "The pool retries a refused connection, and timeouts as well.",
        "The pool retries a request when the connection is refused, timeouts too.",
        "The pool retries requests on every error, including a refused connection.",
    ):
        assert "adds" in dropped(claim, RETRIES), claim
    kept("The pool retries a request when the connection is refused.", RETRIES)
    # The quote adds it too, or "as well as" joins two nouns.
    kept(
        "The pool also retries a request when the connection is refused.",
        "The pool also retries a request when the connection is refused.",
    )
    kept(
        "The pool retries refused connections as well as resets.",
        "The pool retries refused connections and resets.",
    )
    # "including" gives cases as the quote's "such as" or "e.g." does; "also" does not.
    for cases in ("such as resets", "e.g. resets", "for example resets"):
        kept(
            "The pool retries connection errors, including resets.",
            f"The pool retries connection errors, {cases}.",
        )
    assert dropped(
        "The pool also retries resets.", "The pool retries connection errors, such as resets."
    )


def test_the_verb_include_adds_no_case() -> None:
    # "includes" folds as "including" does, but says what "has" or "holds" says.
    kept("The reply includes the status code.", "The reply holds the status code.")
    kept("The included headers are sent with the reply.", "The headers are sent with the reply.")
    assert "adds" in dropped(
        "The reply holds every header, including the cookies.", "The reply holds every header."
    )


def test_an_addition_to_an_earlier_kept_claim_of_the_same_item_is_kept() -> None:
    packet = one_item_packet("Clients pool their connections.\n\nClients send shared headers.")
    alone = verify_quoting(
        packet, "Clients also send shared headers.", "Clients send shared headers."
    )
    assert not alone.claims
    label = packet.items[0].label
    both = verify(
        response(
            ("Clients pool their connections.", [label], ["Clients pool their connections."]),
            ("Clients also send shared headers.", [label], ["Clients send shared headers."]),
        ),
        packet,
        str,
    )
    assert len(both.claims) == 2


def test_after_where_the_quote_says_before_the_same_words_is_dropped() -> None:
    problem = dropped("The audit hook runs after the job is sent to a worker.", HOOK)
    assert "'after'" in problem and "'before'" in problem
    assert "'before'" in dropped("The audit hook runs before the job is fully queued.", HOOK)
    kept("The audit hook runs before the job is sent to a worker.", HOOK)
    kept("The audit hook runs after a job is fully queued.", HOOK)
    # The order said the other way round: the same words, the other side of the word.
    kept("A job is sent to a worker after it is fully queued.", HOOK)


def test_a_lead_denying_what_the_quote_states_is_dropped() -> None:
    evidence = "The client is thread-safe. Its pool is not shared across processes."
    assert "lead denies" in dropped(
        "Not thread-safe: its pool is not shared across processes.", evidence
    )
    kept("Not across processes: its pool is not shared there.", evidence)
    # A contrast keeps the quote from stating the lead's words plainly.
    kept(
        "Not process-safe: the client's pool is not shared across processes.",
        "The client is thread-safe rather than process-safe; its pool is not shared across "
        "processes.",
    )
    # A lead opening with a preposition is a circumstance the rest of the claim denies.
    kept(
        "Not on a client instance: per-request cookies aren't supported there.",
        "Per-request cookies are not supported. On a client instance, set cookies on the client.",
    )


def test_a_not_lead_or_a_non_prefix_keeps_the_quotes_negation() -> None:
    quote = "An error is raised for replies which are not a 2xx code."
    packet = one_item_packet(quote)
    for claim in (
        "Not for 2xx codes: no error is raised for those replies.",
        "An error is raised for non-2xx replies.",
    ):
        assert verify_quoting(packet, claim, quote).claims, claim
    assert not verify_quoting(packet, "An error is raised for 2xx replies.", quote).claims


def test_contraction_tails_are_no_content_words() -> None:
    kept("You'll get UTF-8.", "The reply is UTF-8.")
    kept("They're cached.", "Replies are cached.")
    kept("We've cached it.", "It is cached.")


def test_an_order_turned_around_once_is_dropped_twice_is_kept() -> None:
    precedence = "Paths listed first have higher precedence than the ones listed later."
    assert "turns around" in dropped(
        "Paths listed later have higher precedence than the ones listed first.", precedence
    )
    kept("Paths listed later have lower precedence than the ones listed first.", precedence)
    matching = "Routes are matched from most specific patterns to least specific ones."
    assert "turns around" in dropped(
        "Routes are matched from least specific patterns to most specific ones.", matching
    )
    kept("Routes are matched from the most specific patterns to the least specific.", matching)
    archive = "The first file in an archive is used."
    assert "turns around" in dropped("The last file in an archive is used.", archive)
    kept("Only the first file in an archive is used.", archive)


def test_an_end_said_out_of_its_quotes_place_turns_nothing_around() -> None:
    # One end for the other counts only by the same word on the same side ("last file" of
    # "first file"); elsewhere "later", "least" or "first" is a word of its own sentence.
    kept(
        "Models can be imported later, once the registry has run its setup.",
        "Run the registry's setup first, before importing models.",
    )
    kept(
        "At least one backend must be listed in the settings.",
        "Most projects list one backend in the settings, and one must be listed.",
    )
    assert "turns around" in dropped(
        "Paths listed later have higher precedence.", "Paths listed first have higher precedence."
    )
