"""The held-out model answers, replayed through the real `openai` client on every landing (issue 9).

The test split of benchmarks/model_answers (hand-written answers to held-out dev questions) goes
through the composition `docbot ask` runs, on both APIs, against the fake OpenAI server that cites
from each prompt; a small BM25 index of just the files those answers quote keeps it quick. It
asserts issue 9's targets (figures.TARGET_*) where the verifier meets them, else today's figure.
The floors were measured on the first batch of answers, so that batch is what is replayed here;
later batches (s8: answers over all four corpora, in shapes the first did not have) are measured
by `python -m benchmarks.model_answers --split test --batch s8` on the full indexes.
"""

from __future__ import annotations

import pytest

from benchmarks.dev_questions import CORPORA
from benchmarks.model_answers.answers import CORPUS_NAMES, FIRST_BATCH, load_answers
from benchmarks.model_answers.figures import (
    TARGET_DROPPED,
    TARGET_INTACT,
    Figures,
    figures,
    misses,
)
from benchmarks.model_answers.run import APIS, ClaimOutcome, replay, replay_config
from retrieval.index import build_index

# Issue 9's targets where the verifier meets them on this split (main 3491520, after "the
# verifier reads both ways"), else the figure it reaches, so a regression fails here: see
# docs/performance-verifier.md, "Model answers". Raise a floor to its target when the verifier
# gets there.
FLOOR_FAITHFUL_KEPT = 0.92  # 106/114; target TARGET_FAITHFUL_KEPT
FLOOR_INTACT = TARGET_INTACT  # 42/48
FLOOR_DROPPED = {
    "invented_parameter": TARGET_DROPPED,  # 26/26
    "wrong_evidence": TARGET_DROPPED,  # 14/14
    "outside_knowledge": TARGET_DROPPED,  # 20/22
    "changed_number": TARGET_DROPPED,  # 20/22 since Spanish number words are numbers (h3)
    "spelled_count": 0.83,  # 10/12
    "bool_swapped": TARGET_DROPPED,  # 4/4
    "negation_added": TARGET_DROPPED,  # 16/16
    "negation_removed": TARGET_DROPPED,  # 6/6
}
MAX_NOT_REPLAYED_SHARE = 0.05


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> list[ClaimOutcome]:
    if not CORPORA.is_dir():
        pytest.skip(f"../shared is absent: no corpora at {CORPORA}")
    state = tmp_path_factory.mktemp("model-answers")
    out: list[ClaimOutcome] = []
    for corpus in CORPUS_NAMES:
        answers = load_answers(corpus, "test", (FIRST_BATCH,))
        if not answers:
            continue
        files = sorted({f for a in answers for f in a.files})
        for api in APIS:
            config = replay_config(corpus, state / corpus, api, include=files, dense=False)
            if api == APIS[0]:
                build_index(config)
            out += replay(config, answers)
    return out


@pytest.fixture(scope="module")
def measured(outcomes: list[ClaimOutcome]) -> Figures:
    return figures(outcomes)


def test_every_held_out_claim_is_replayed_and_matched(outcomes: list[ClaimOutcome]) -> None:
    broken = [o for o in outcomes if o.outcome in ("error", "unmatched")]
    assert not broken, "\n".join(misses(broken))
    # The small index ranks a little differently from the full one the answers were written
    # against (fewer files, other term statistics), so a quote can miss the packet; a few may.
    missed = [o for o in outcomes if o.outcome == "not_replayed"]
    assert len(missed) <= MAX_NOT_REPLAYED_SHARE * len(outcomes), "\n".join(misses(missed))


def test_faithful_claims_and_answers_are_kept(measured: Figures) -> None:
    assert measured.faithful_kept.share >= FLOOR_FAITHFUL_KEPT, measured.faithful_kept
    assert measured.answers_intact.share >= FLOOR_INTACT, measured.answers_intact


def test_each_unfaithful_kind_is_dropped(measured: Figures) -> None:
    for kind, rate in measured.dropped_by_kind.items():
        assert rate.total, f"the test split has no {kind} claim"
        assert rate.share >= FLOOR_DROPPED[kind], (kind, rate)
