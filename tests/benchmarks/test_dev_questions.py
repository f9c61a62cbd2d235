"""The development question sets are well formed, split stably and checkable against their docs."""

from __future__ import annotations

from collections import Counter
from fnmatch import fnmatch
from pathlib import Path

import pytest
import yaml

from benchmarks.dev_questions import CORPORA, REPO, SETS, Question, load_questions, split_of

MANUAL = "docbot-docs"  # the set over docbot's own manual, named as docbot.yml names it


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


# Alternative wordings from the first sets: a right answer may say them, the file does not (it
# holds another string of the same question, e.g. "1209600" and "2 weeks" beside "two weeks").
NOT_VERBATIM = {("dj02", "two weeks"), ("pe10", "12 months")}


def _norm(text: str) -> str:
    return " ".join(text.split())


def test_every_line_parses_with_its_file_prefix_and_numbering() -> None:
    for corpus in SETS:
        questions = load_questions(corpus)  # InputError naming the line if one does not parse
        prefix = questions[0].id[:2]
        assert [q.id for q in questions] == [
            f"{prefix}{n:02d}" for n in range(1, len(questions) + 1)
        ], f"{corpus}: ids continue the file's numbering, one per line"


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared is absent")
def test_expected_files_exist_in_their_corpus() -> None:
    for q in _all():
        root = CORPORA / SETS[q.corpus][0]
        for path in q.expected:
            assert (root / path).is_file(), f"{q.id}: {path} is not in {root}"


def _assert_verbatim(q: Question) -> None:
    """Case kept, whitespace normalised: a string is text of the answering passage."""
    root = CORPORA / SETS[q.corpus][0]
    texts = [_norm((root / p).read_text(encoding="utf-8")) for p in q.expected]
    found = [s for s in q.strings if any(_norm(s) in t for t in texts)]
    missing = [s for s in q.strings if s not in found and (q.id, s) not in NOT_VERBATIM]
    assert found and not missing, f"{q.id}: {missing or q.strings} not in {q.expected}"


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared is absent")
def test_every_string_is_verbatim_in_an_expected_file() -> None:
    for q in (q for q in _all() if q.answerable):
        _assert_verbatim(q)


def _demo_collection() -> tuple[Path, list[str]]:
    """The folder and the excluded globs of the manual's collection in the repo's docbot.yml."""
    demo = yaml.safe_load((REPO / "docbot.yml").read_text(encoding="utf-8"))
    (docs,) = [c for c in demo["collections"] if c["name"] == MANUAL]
    return REPO / docs["path"], [str(glob) for glob in docs.get("exclude", [])]


def test_the_manual_set_is_the_demo_collection_asked_as_in_slack() -> None:
    """45-60 questions over docs/ as docbot.yml indexes it: a third not answered by the manual,
    some in Spanish and Chinese, both kinds in both splits."""
    folder, exclude = SETS[MANUAL]
    assert (Path(folder), list(exclude)) == _demo_collection()
    questions = load_questions(MANUAL)
    assert 45 <= len(questions) <= 60
    assert 0.28 <= sum(not q.answerable for q in questions) / len(questions) <= 0.40
    langs = Counter(q.lang for q in questions)
    assert langs["es"] >= 2 and langs["zh"] >= 2
    for split in ("train", "test"):
        kinds = {q.answerable for q in questions if q.split == split}
        assert kinds == {True, False}, split


def test_the_manual_sets_answers_are_in_files_the_demo_indexes() -> None:
    """Checked without ../shared: the manual ships in the repo."""
    folder, exclude = _demo_collection()
    for q in (q for q in load_questions(MANUAL) if q.answerable):
        for path in q.expected:
            assert (folder / path).is_file(), f"{q.id}: {path} is not in {folder}"
            assert not any(fnmatch(path, g) for g in exclude), f"{q.id}: {path} is not indexed"
        _assert_verbatim(q)
