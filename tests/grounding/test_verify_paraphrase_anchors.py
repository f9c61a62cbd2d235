"""A number whose next words are all the paraphrase's own ("can give it two or more" of "it
may have two or more") is anchored by the words past them: words the evidence never says anchor
nothing. A value on a line of its own ("Default: 40") takes the words of the other quoted sentences.
Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept

POOL = "Usually the pool keeps one idle worker, but under heavy bursts it may hold three or more."


def test_a_number_next_to_the_paraphrases_own_words_is_read_past_them() -> None:
    kept(
        "The pool usually keeps one idle worker, though heavy bursts can grow it to three or more.",
        POOL,
    )


def test_a_number_still_needs_its_words_near_it() -> None:
    dropped(
        "The pool usually keeps one idle worker, though heavy bursts can grow it to four or more.",
        POOL,
    )
    # The next word is the evidence's, elsewhere: the number is read with it, as before.
    dropped("The team played in week 17.", "In week 16 the team scored 17 touchdowns.")
    dropped(
        "Heavy bursts grow the pool to three idle workers, and we add them by hand.",
        "Usually one idle worker is kept. We add three by hand under heavy bursts.",
    )


PANTRY = (
    "A pantry keeps up to *shelves* of the freshest loaves.\n\n"
    "Used bare, it leaves *shelves* at its default value of 64."
)


def test_a_number_after_words_the_evidence_says_elsewhere_is_anchored_past_them() -> None:
    # "freshest loaves" is in the evidence, not near 64; "shelves", a few words further, is.
    kept("The pantry keeps *shelves* of the freshest loaves, 64 when you use it plain.", PANTRY)


def test_a_number_no_word_of_the_claim_binds_is_still_dropped() -> None:
    dropped("The pantry keeps up to 64 freshest loaves on a rack.", PANTRY)


PRINTER = (
    "Default: ``40``\n\n"
    "The most pages a print job may carry before the printer raises ``JobTooLong``."
)


def test_a_default_on_a_line_of_its_own_takes_the_words_of_the_other_quotes() -> None:
    kept(
        "One print job may carry up to forty pages; past that the printer raises `JobTooLong`.",
        PRINTER,
    )


def test_a_default_line_lends_nothing_to_words_the_quotes_never_say() -> None:
    dropped("The paper tray holds forty sheets.", PRINTER)
