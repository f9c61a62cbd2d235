"""An English number word in a claim in another language is a word of that language, not a
number ("Ten en cuenta ...", Spanish for "keep in mind"); its digits and its own number words
("tres") are still checked. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import other_language_dropped, other_language_problem

EVIDENCE = "The caller must empty the kettle after 3 uses; the kettle never empties itself."


def test_an_english_number_word_in_a_spanish_claim_is_no_number() -> None:
    assert (
        other_language_problem("Ten en cuenta que vaciar la tetera te toca a ti.", EVIDENCE) is None
    )


def test_digits_and_spanish_numbers_are_still_checked() -> None:
    assert "5" in other_language_dropped("Vacía la tetera después de 5 usos.", EVIDENCE)
    assert "4" in other_language_dropped("Vacía la tetera después de cuatro usos.", EVIDENCE)
