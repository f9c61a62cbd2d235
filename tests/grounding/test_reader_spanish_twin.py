"""A Spanish question on English docs is read as its English twin: the same words, the same best
unit, the same quoted passage, and question features that differ only in `foreign`, so what
stands between its answer and its twin's is the answerer's fitted language prior alone.

This pins the reading, not a probability: whether the shipped threshold answers the Spanish
question depends on the size of that prior, which every refit moves (it passed by 0.004 once);
the benchmarks' non-English figures measure that.
"""

from __future__ import annotations

import numpy as np

from grounding.generators.extractive import ExtractiveGenerator, judge, shared_embedder
from grounding.generators.reader_model import load_model
from grounding.generators.reading import QUESTION_FEATURES, question_features
from tests.grounding.test_reader import docs, generate, packet

ENGLISH = "what is the default timeout?"
SPANISH = "¿cuál es el timeout por defecto?"
# What the readings' own wording moves (the embedding of "timeout default" is not that of the
# whole English question): the ranker's logits, so its best one, its margin and where the rest
# of its probability lies (file_agreement), and the best unit's similarity.
WORDING = {"best_logit", "margin", "best_semantic", "file_agreement"}


def features(question: str) -> dict[str, float]:
    judged = judge(packet(question, *docs()), load_model(), shared_embedder())
    logits = load_model().ranker.logits(judged.reading.units)
    row = question_features(judged.reading, logits)
    return dict(zip(QUESTION_FEATURES, row.tolist(), strict=True))


def test_the_spanish_question_reads_the_words_of_its_english_twin() -> None:
    english = judge(packet(ENGLISH, *docs()), load_model(), shared_embedder())
    spanish = judge(packet(SPANISH, *docs()), load_model(), shared_embedder())
    assert spanish.reading.asked.foreign and not english.reading.asked.foreign
    assert set(spanish.reading.asked.terms) == set(english.reading.asked.terms)
    assert spanish.reading.asked.dropped == ()
    assert spanish.ranked[0].candidate == english.ranked[0].candidate


def test_its_features_differ_from_its_twins_only_in_the_language() -> None:
    english, spanish = features(ENGLISH), features(SPANISH)
    assert (english["foreign"], spanish["foreign"]) == (0.0, 1.0)
    for name in QUESTION_FEATURES:
        if name not in WORDING | {"foreign"}:
            assert spanish[name] == english[name], name
    # The wording moves the answerer's logit by little beside what the language prior does.
    answerer = load_model().answerer
    x = np.array([[english[f] for f in QUESTION_FEATURES], [spanish[f] for f in QUESTION_FEATURES]])
    moved = answerer.logits(x)
    foreign = QUESTION_FEATURES.index("foreign")
    prior = answerer.weights[foreign] / answerer.scale[foreign]
    assert abs(float(moved[1] - moved[0]) - prior) < 0.25


def test_answered_it_quotes_what_its_english_twin_quotes() -> None:
    # The same threshold for both, low enough that the language prior does not decide: the
    # quoted passage is the reading's, and it holds the answer.
    anyway = ExtractiveGenerator(threshold=0.0)
    english = generate(ENGLISH, *docs(), generator=anyway).response
    spanish = generate(SPANISH, *docs(), generator=anyway).response
    assert spanish.status == english.status == "answered"
    assert spanish.claims == english.claims
    assert any("5 seconds" in c.text for c in spanish.claims)


def test_the_english_twin_is_answered_with_the_value() -> None:
    response = generate(ENGLISH, *docs()).response
    assert response.status == "answered"
    assert any("5 seconds" in c.text for c in response.claims)
