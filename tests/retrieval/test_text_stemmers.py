"""The light suffix folders: what they join, and what they must keep apart."""

from __future__ import annotations

from retrieval.text import NEGATIONS, fold_word, light_stem


def test_fold_word_joins_inflections() -> None:
    assert fold_word("retries") == fold_word("retry")
    assert fold_word("configured") == fold_word("configure")
    assert fold_word("stopped") == fold_word("stop")


def test_fold_word_never_makes_a_negation_of_a_word_that_is_none() -> None:
    # The verifier anchors every negation: "note" read as "not" dropped true claims.
    for word in ("note", "notes", "noted", "noting"):
        assert fold_word(word) not in NEGATIONS
        assert fold_word(word) == fold_word("note")
    # A negation folds to itself: "none" used to become "non" and escape its anchor check.
    assert all(fold_word(n) == n for n in NEGATIONS)


def test_light_stem_sends_cyrillic_to_snowball_russian_and_keeps_other_scripts() -> None:
    assert light_stem("развёртывание") == light_stem("развёртывания")
    assert light_stem("größe") == "größe"
    assert light_stem("rotating") == light_stem("rotated") == "rotat"
