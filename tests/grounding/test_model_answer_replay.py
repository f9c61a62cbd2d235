"""The held-out model answers, replayed through the real `openai` client on every landing (issue 9).

The test split of benchmarks/model_answers (hand-written answers to held-out dev questions) goes
through the composition `docbot ask` runs, on both APIs, against the fake OpenAI server that cites
from each prompt; a small BM25 index of just the files those answers quote keeps it quick. It
asserts issue 9's targets (figures.TARGET_*) where the verifier meets them, else today's figure.
Each batch is replayed and held to floors of its own: the first batch's were measured on it, and
s8's (answers over all four corpora, in shapes the first did not have, far from the targets) on
this small index, where its quotes miss the packet more often than on the full indexes that
`python -m benchmarks.model_answers --split test --batch s8` measures; s9's (written in session 9
by someone who had not read the verifier) likewise, and s11's (session 11, blind, as written).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from benchmarks.dev_questions import CORPORA
from benchmarks.model_answers.answers import BATCHES, CORPUS_NAMES, FIRST_BATCH, load_answers
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


@dataclass(frozen=True)
class Floors:
    faithful_kept: float
    intact: float
    dropped: dict[str, float]
    not_replayed: float  # the most of a batch's claims whose quote may miss the small index


# Batch s8 on main 1823a32 (both APIs, this small index; its test misses were not read): today's
# figures, so a regression fails here; 22 of its 234 claims miss the packet here, none on the
# full indexes. Raise them with the verifier.
FLOORS = {
    FIRST_BATCH: Floors(FLOOR_FAITHFUL_KEPT, FLOOR_INTACT, FLOOR_DROPPED, MAX_NOT_REPLAYED_SHARE),
    "s8": Floors(
        faithful_kept=0.71,  # 82/114 (78 on b30fbe1, before 8dc6096's double backticks)
        intact=0.26,  # 8/30 (6 on b30fbe1)
        dropped={
            "invented_parameter": TARGET_DROPPED,  # 6/6
            "wrong_evidence": TARGET_DROPPED,  # 6/6
            "outside_knowledge": 0.75,  # 18/24
            "changed_number": TARGET_DROPPED,  # 16/16
            "spelled_count": TARGET_DROPPED,  # 14/14
            "bool_swapped": TARGET_DROPPED,  # 10/10
            "negation_added": 0.85,  # 12/14
            "negation_removed": 0.75,  # 6/8
        },
        not_replayed=0.10,  # 22/234
    ),
    # Batch s9 on main 7389843 (both APIs, this small index; written without reading the
    # verifier, its test misses not read): today's figures, so a regression fails here. 12 of
    # its 96 claims miss the packet here (pe23's Spanish question, on BM25 alone), none on the
    # full indexes.
    "s9": Floors(
        faithful_kept=0.69,  # 30/42
        intact=0.15,  # 2/12
        dropped={
            "invented_parameter": TARGET_DROPPED,  # 8/8
            "wrong_evidence": TARGET_DROPPED,  # 4/4
            "outside_knowledge": TARGET_DROPPED,  # 6/6
            "changed_number": TARGET_DROPPED,  # 8/8
            "spelled_count": TARGET_DROPPED,  # 4/4
            "bool_swapped": TARGET_DROPPED,  # 2/2
            "negation_added": TARGET_DROPPED,  # 6/6
            "negation_removed": 0.45,  # 2/4
        },
        not_replayed=0.15,  # 12/96
    ),
    # Batch s11 (session 11, written blind: h3's httpx and Django answers, h4's Python docs and
    # PEPs) on main d060ca3 + h4's answers (both APIs, this small index), measured as written:
    # its figures, not tuned on, so a regression fails here. 8 of its 198 test claims miss the
    # packet here (all Python/PEPs), none on the full indexes. Per writer: h3 faithful 38/50,
    # intact 4/14, every kind dropped; h4 faithful 42/54, intact 8/16, bool_swapped 2/4,
    # negation_added 8/10, every other kind dropped.
    "s11": Floors(
        faithful_kept=0.76,  # 80/104
        intact=0.40,  # 12/30
        dropped={
            "invented_parameter": TARGET_DROPPED,  # 14/14
            "wrong_evidence": TARGET_DROPPED,  # 14/14
            "outside_knowledge": TARGET_DROPPED,  # 12/12
            "changed_number": TARGET_DROPPED,  # 4/4
            "spelled_count": TARGET_DROPPED,  # 8/8
            "bool_swapped": 0.66,  # 4/6
            "negation_added": 0.85,  # 12/14
            "negation_removed": TARGET_DROPPED,  # 14/14
        },
        not_replayed=MAX_NOT_REPLAYED_SHARE,  # 8/198
    ),
}


@pytest.fixture(scope="module", params=BATCHES)
def batch(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory, batch: str) -> list[ClaimOutcome]:
    if not CORPORA.is_dir():
        pytest.skip(f"../shared is absent: no corpora at {CORPORA}")
    held_out = {corpus: load_answers(corpus, "test", (batch,)) for corpus in CORPUS_NAMES}
    if not any(held_out.values()):
        # A batch being written (s11 until its answers land) has nothing to replay yet; once it
        # has, FLOORS must name it.
        pytest.skip(f"batch {batch} has no test-split answers yet")
    state = tmp_path_factory.mktemp(f"model-answers-{batch}")
    out: list[ClaimOutcome] = []
    for corpus, answers in held_out.items():
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


def test_every_held_out_claim_is_replayed_and_matched(
    outcomes: list[ClaimOutcome], batch: str
) -> None:
    broken = [o for o in outcomes if o.outcome in ("error", "unmatched")]
    assert not broken, "\n".join(misses(broken))
    # The small index ranks a little differently from the full one the answers were written
    # against (fewer files, other term statistics), so a quote can miss the packet; a few may.
    missed = [o for o in outcomes if o.outcome == "not_replayed"]
    limit = FLOORS[batch].not_replayed
    assert len(missed) <= limit * len(outcomes), "\n".join(misses(missed))


def test_faithful_claims_and_answers_are_kept(measured: Figures, batch: str) -> None:
    floors = FLOORS[batch]
    assert measured.faithful_kept.share >= floors.faithful_kept, measured.faithful_kept
    assert measured.answers_intact.share >= floors.intact, measured.answers_intact


def test_each_unfaithful_kind_is_dropped(measured: Figures, batch: str) -> None:
    for kind, rate in measured.dropped_by_kind.items():
        assert rate.total, f"the test split has no {kind} claim"
        assert rate.share >= FLOORS[batch].dropped[kind], (kind, rate)
