"""The weights file says what its train figure counts: train_reader.py's "answered right" is
reader_threshold.holds (a quoted passage of an expected file holds an expected string), which
is stricter than benchmarks/dev_questions.py's, so the two figures differ and the file says so."""

from __future__ import annotations

from grounding.generators.reader_model import load_model


def test_the_shipped_weights_name_the_rule_their_train_figure_counts() -> None:
    trained_on = load_model().trained_on
    assert "answered right" in trained_on and "reader_threshold.holds" in trained_on
    assert "benchmarks/dev_questions.py" in trained_on
