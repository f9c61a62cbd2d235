"""A claim in Spanish is checked on its numbers (issue 9): spelled out in Spanish too ("tres
pasos", "veinte segundos"), not only in digits. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import other_language_problem

EVIDENCE = "Rotating the key takes three steps. The default timeout is 20 seconds."


def _problem(claim: str) -> str | None:
    return other_language_problem(claim, EVIDENCE)


def test_spanish_number_words_are_numbers() -> None:
    assert _problem("Rotar la clave requiere tres pasos.") is None
    assert _problem("El tiempo de espera predeterminado es de veinte segundos.") is None
    problem = _problem("Rotar la clave requiere cuatro pasos.")
    assert problem is not None and "number 4" in problem
    problem = _problem("El tiempo de espera predeterminado es de treinta segundos.")
    assert problem is not None and "number 30" in problem


def test_spanish_articles_are_no_counts() -> None:
    # "un", "una", "uno" are articles as often as counts, as "one" is in English.
    assert _problem("Rotar una clave requiere tres pasos.") is None
