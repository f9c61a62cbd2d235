"""bot/metrics.py on its own: what one answer adds (tokens, dropped claims, stages)."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from bot.metrics import Metrics
from grounding.answer import Answer, AnswerStatus, DroppedClaim, Usage
from retrieval.scopes import ConversationKind, Scope


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = metrics.exposition().decode("utf-8")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_metrics_answered_adds_tokens_dropped_claims_and_stage_times() -> None:
    metrics = Metrics()
    scope = Scope(
        team_id="T1", channel_id="C1", kind=ConversationKind.CHANNEL, collections=("docs",)
    )
    answer = Answer(
        status=AnswerStatus.ANSWERED, question="q", scope=scope, usage=Usage(120, 30),
        dropped_claims=(DroppedClaim("a", "unsupported"), DroppedClaim("b", "unsupported"),
                        DroppedClaim("c", "no_citation")),
        timings_ms={"retrieve": 4.0, "generate": 1500.0},
    )  # fmt: skip
    metrics.answered(answer, 1.6)
    metrics.answered(answer, 0.4)
    found = samples(metrics)
    assert found[("docbot_model_tokens_total", (("kind", "input"),))] == 240
    assert found[("docbot_model_tokens_total", (("kind", "output"),))] == 60
    assert found[("docbot_claims_dropped_total", (("reason", "unsupported"),))] == 4
    assert found[("docbot_claims_dropped_total", (("reason", "no_citation"),))] == 2
    assert found[("docbot_stage_seconds_sum", (("stage", "generate"),))] == 3.0
    assert found[("docbot_stage_seconds_sum", (("stage", "answer"),))] == 2.0
    # The histogram's buckets: 1.5 s falls in (1, 2.5].
    assert found[("docbot_stage_seconds_bucket", (("le", "1.0"), ("stage", "generate")))] == 0
    assert found[("docbot_stage_seconds_bucket", (("le", "2.5"), ("stage", "generate")))] == 2
    assert found[("docbot_questions_total", (("status", "answered"),))] == 2


def test_metrics_in_flight_gauge_reads_the_count_at_each_scrape() -> None:
    metrics = Metrics()
    pending = [3]
    metrics.count_in_flight(lambda: pending[0])
    assert samples(metrics)[("docbot_answers_in_flight", ())] == 3
    pending[0] = 0
    assert samples(metrics)[("docbot_answers_in_flight", ())] == 0
