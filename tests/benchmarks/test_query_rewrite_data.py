"""The query-rewrite benchmark's data: a rewrite for every question it measures, each one what
the rewrite call may return (1-3 plain-English queries), and follow-ups checkable in their docs."""

from __future__ import annotations

import pytest

from benchmarks.dev_questions import CORPORA, SETS
from benchmarks.query_rewrite import load_items, load_rewrites, masked
from grounding.rewrite import MAX_QUERIES, needs_rewrite


def test_every_measured_question_has_a_rewrite_of_one_to_three_english_queries() -> None:
    table = load_rewrites()
    for corpus in sorted(SETS):
        for item in load_items(corpus):
            queries = table.get(item.id)
            assert queries and len(queries) <= MAX_QUERIES, item.id
            # Translated and standalone: no query would itself be rewritten again.
            assert not any(needs_rewrite(q, ()) for q in queries), item.id


def test_follow_ups_have_earlier_questions_and_are_in_english() -> None:
    follow_ups = [i for c in sorted(SETS) for i in load_items(c) if i.context]
    assert len(follow_ups) >= 20
    assert {i.corpus for i in follow_ups} == set(SETS)
    assert len({i.id for i in follow_ups}) == len(follow_ups)


def test_masking_takes_out_answer_strings_the_question_does_not_hold() -> None:
    (item,) = [i for i in load_items("django") if i.id == "dj40"]  # asks about select_for_update
    assert masked(item, ["select_for_update lock rows"]) == ("select_for_update lock rows",)
    (item,) = [i for i in load_items("django") if i.id == "dj12"]
    assert masked(item, ["select_for_update", "lock rows select_for_update"]) == ("lock rows",)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="../shared is absent: no corpora")
def test_follow_up_expected_files_exist_in_their_corpus() -> None:
    for corpus, (folder, _) in sorted(SETS.items()):
        for item in load_items(corpus):
            if item.context:
                assert any((CORPORA / folder / path).is_file() for path in item.expected), item.id
