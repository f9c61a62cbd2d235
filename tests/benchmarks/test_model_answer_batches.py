"""Model answers carry the batch that wrote them, so the figures of a grown set can be split."""

from __future__ import annotations

from collections import Counter

import pytest

from benchmarks.model_answers.answers import BATCHES, CORPUS_NAMES, FIRST_BATCH, load_answers


def test_a_batch_filter_keeps_only_that_batch_and_the_batches_add_up() -> None:
    for corpus in CORPUS_NAMES:
        every = load_answers(corpus)
        by_batch = {b: load_answers(corpus, batches=(b,)) for b in BATCHES}
        assert all(a.batch == b for b, answers in by_batch.items() for a in answers)
        assert sum(len(answers) for answers in by_batch.values()) == len(every), corpus


def test_a_line_without_a_batch_is_of_the_first_set() -> None:
    # httpx's first answers were written before batches existed and name none.
    first = load_answers("httpx", batches=(FIRST_BATCH,))
    assert first and first[0].id == "hx01.f"


@pytest.mark.parametrize("batch", ["s8", "s9"])
def test_a_session_batch_holds_answers_on_both_splits_over_every_corpus(batch: str) -> None:
    answers = [a for corpus in CORPUS_NAMES for a in load_answers(corpus, batches=(batch,))]
    assert {a.corpus for a in answers} == set(CORPUS_NAMES)
    splits = Counter(a.split for a in answers)
    assert splits["train"] and splits["test"], splits
