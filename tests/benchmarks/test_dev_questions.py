"""The development question sets are well formed, split stably and checkable against their docs."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks.dev_questions import CORPORA, SETS, Question, load_questions, split_of


def _all() -> list[Question]:
    return [q for corpus in sorted(SETS) for q in load_questions(corpus)]


def test_sets_are_broad_enough_for_the_rule_of_issue_8() -> None:
    questions = _all()
    assert len(questions) >= 150
    uncovered = sum(not q.answerable for q in questions) / len(questions)
    assert 0.25 <= uncovered <= 0.45, "about a third must be on-topic but not answered"
    langs = Counter(q.lang for q in questions)
    assert langs["zh"] >= 5 and langs["es"] >= 5
    assert len({q.id for q in questions}) == len(questions), "ids are unique"


def test_each_question_says_what_a_right_answer_holds() -> None:
    for q in _all():
        if q.answerable:
            assert q.expected and q.strings, q.id
        else:
            assert not q.expected and not q.strings, q.id


def test_split_depends_on_the_id_only_and_holds_out_both_kinds() -> None:
    assert split_of("hx01") == split_of("hx01")
    for corpus in SETS:
        questions = load_questions(corpus)
        test = [q for q in questions if q.split == "test"]
        assert 0.25 <= len(test) / len(questions) <= 0.55, corpus
        assert any(q.answerable for q in test) and any(not q.answerable for q in test), corpus


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared is absent")
def test_expected_strings_are_in_an_expected_file() -> None:
    def norm(text: str) -> str:
        return " ".join(text.lower().split())

    for q in (q for q in _all() if q.answerable):
        root = CORPORA / SETS[q.corpus][0]
        texts = [norm((root / p).read_text(encoding="utf-8")) for p in q.expected]
        assert any(norm(s) in t for s in q.strings for t in texts), q.id
