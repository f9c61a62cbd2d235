"""A claim in Spanish is checked on its numbers (issue 9): spelled out in Spanish too ("tres
pasos", "veinte segundos"), not only in digits. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import other_language_dropped, other_language_problem

EVIDENCE = "Rotating the key takes three steps. The default timeout is 20 seconds."


def _problem(claim: str) -> str | None:
    return other_language_problem(claim, EVIDENCE)


def test_spanish_number_words_are_numbers() -> None:
    assert _problem("Rotar la clave requiere tres pasos.") is None
    assert _problem("El tiempo de espera predeterminado es de veinte segundos.") is None
    assert "number 4" in other_language_dropped("Rotar la clave requiere cuatro pasos.", EVIDENCE)
    assert "number 30" in other_language_dropped(
        "El tiempo de espera predeterminado es de treinta segundos.", EVIDENCE
    )


def test_spanish_articles_are_no_counts() -> None:
    # "un", "una", "uno" are articles as often as counts, as "one" is in English.
    assert _problem("Rotar una clave requiere tres pasos.") is None


COMPOSED = "A lock times out after 35 seconds. The cache holds 2,500 entries and 120 pages."


def test_a_spanish_number_phrase_is_one_number() -> None:
    # "treinta y cinco" is 35 (not a 30 and a 5), "dos mil quinientas" 2,500, "ciento veinte" 120.
    assert (
        other_language_problem("El bloqueo expira tras treinta y cinco segundos.", COMPOSED) is None
    )
    assert other_language_problem("La caché guarda dos mil quinientas entradas.", COMPOSED) is None
    assert other_language_problem("La caché guarda ciento veinte páginas.", COMPOSED) is None
    assert "number 36" in other_language_dropped(
        "El bloqueo expira tras treinta y seis segundos.", COMPOSED
    )
    assert "number 2000" in other_language_dropped("La caché guarda dos mil entradas.", COMPOSED)


def test_por_ciento_is_a_percent_not_a_hundred() -> None:
    # "ciento" is a hundred only before a number ("ciento veinte").
    evidence = "A retry waits 5 percent longer each time."
    assert (
        other_language_problem("Cada reintento espera un cinco por ciento más.", evidence) is None
    )


def test_the_spanish_twenties_are_numbers() -> None:
    # "veintidós" (22) is one word, as "treinta y dos" is not: it was read as no number at all.
    evidence = "The pool keeps 22 connections."
    assert other_language_problem("El pool mantiene veintidós conexiones.", evidence) is None
    assert "number 23" in other_language_dropped(
        "El pool mantiene veintitrés conexiones.", evidence
    )
