"""A count in a Spanish or Chinese claim of English evidence is checked against what the quote
counts, not only for being somewhere in it: "tres conexiones" of "two connections ... three
times" is dropped. Made-up sentences, no benchmark item."""

from __future__ import annotations

from grounding.verification.foreign_counts import in_english
from tests.grounding.support_checks import other_language_dropped, other_language_problem

POOL = "The pool opens two connections and retries three times."


def test_a_count_the_quote_gives_another_noun_is_dropped() -> None:
    for claim in (
        "El pool abre tres conexiones.",
        "El pool reintenta dos veces.",
        "连接池打开三个连接。",
        "连接池重试两次。",
    ):
        assert "counts" in other_language_dropped(claim, POOL), claim


def test_a_count_the_quote_gives_the_same_noun_is_kept() -> None:
    for claim in (
        "El pool abre dos conexiones y reintenta tres veces.",
        "连接池打开两个连接，重试三次。",
        # A noun the tables do not know is checked for its number's presence, as before.
        "El pool hace tres cosas.",
    ):
        assert other_language_problem(claim, POOL) is None, claim


def test_counts_are_read_in_english_with_their_nouns() -> None:
    assert in_english("Espera treinta y cinco segundos, dos veces.") == "35 seconds. 2 times."
    assert in_english("有两种方式，等待30秒。") == "2 ways. 30 seconds."
    assert in_english("第3步") == ""  # a position, not a count
    assert in_english("HTTPX tiene un cliente.") == ""  # "un" is as often an article


def test_a_spanish_number_with_an_accent_is_read_before_its_noun() -> None:
    # The nouns are looked up without accents, the number ("dieciséis") is read as written.
    assert in_english("Espera dieciséis segundos.") == "16 seconds."
    quote = "The pool opens sixteen connections and retries three times."
    assert "counts" in other_language_dropped("El pool reintenta dieciséis veces.", quote)


def test_a_spanish_number_of_several_words_is_read_whole_before_its_noun() -> None:
    # "ciento veinte" is 120, not a 20 that "The client waits 120 seconds" contradicts.
    assert in_english("Espera ciento veinte segundos.") == "120 seconds."
    quote = "The client waits 120 seconds."
    assert other_language_problem("El cliente espera ciento veinte segundos.", quote) is None


def test_a_chinese_date_is_no_count_of_years_or_months() -> None:
    # "2019年" is the year 2019 and "3月" March; "5年" and "三个月" count.
    assert in_english("2019年发布，支持5年。") == "5 years."
    assert in_english("3月发布，支持三个月。") == "3 months."
    quote = "Python 3.8 was released in 2019 and is supported for 5 years."
    assert other_language_problem("Python 3.8 于2019年发布。", quote) is None


def test_a_chinese_version_is_no_count_of_versions() -> None:
    # "3.11 版本" is version 3.11; "两个版本" counts two versions.
    assert in_english("从 Python 3.11 版本开始支持两个版本。") == "2 versions."
    quote = "Changed in version 3.11: the parser supports 2 versions of the format."
    assert other_language_problem("从 Python 3.11 版本开始支持。", quote) is None
