"""What `docbot serve` counts, for Prometheus to scrape at /metrics: questions by status, stage
latencies, model tokens, Slack API errors, claims the verifier dropped, deliveries not answered
again, takeovers answered without checking the thread, feedback marks and the answers in flight.

One registry per `Metrics` (never prometheus_client's global default), so two apps in one process,
as the tests run them, each count their own.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from grounding.answer import Answer

__all__ = ["CONTENT_TYPE", "Metrics"]

CONTENT_TYPE = CONTENT_TYPE_LATEST
# Seconds. The pipeline's stages take from well under a millisecond (pack) to the model's tens
# of seconds; the answer deadline is at most 600 s (retrieval/config.py).
STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 600)


class Metrics:
    """The instruments of one app, on a registry of its own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.questions = Counter(
            "docbot_questions", "Questions answered, by the answer's status (answered, "
            "not_found, refused, error; input_error: the question was unusable)",
            ["status"], registry=r,
        )  # fmt: skip
        self.stage_seconds = Histogram(
            "docbot_stage_seconds", "Time per pipeline stage (retrieve, pack, generate, "
            "verify) and per whole answer (answer)", ["stage"], buckets=STAGE_BUCKETS,
            registry=r,
        )  # fmt: skip
        self.model_tokens = Counter(
            "docbot_model_tokens", "Model tokens spent, input or output", ["kind"], registry=r
        )
        self.slack_api_errors = Counter(
            "docbot_slack_api_errors", "Slack Web API calls that failed after their retries, "
            "by method", ["method"], registry=r,
        )  # fmt: skip
        self.claims_dropped = Counter(
            "docbot_claims_dropped", "Claims the verifier kept out of an answer, by reason",
            ["reason"], registry=r,
        )  # fmt: skip
        self.deliveries_dropped = Counter(
            "docbot_deliveries_dropped", "Question deliveries not answered (again): done (already "
            "answered), busy (another run holds it), posted (a stopped run's reply was found), "
            "deferred (refused while the store is unreachable, for Slack to deliver again), "
            "rate_limited (a takeover Slack would not let read the thread: tried after its "
            "Retry-After)",
            ["reason"], registry=r,
        )  # fmt: skip
        self.takeovers_unchecked = Counter(
            "docbot_takeovers_unchecked", "Questions taken over from a stopped run and answered "
            "again without knowing whether its reply is in the thread, which can show it twice: "
            "rate_limited (Slack's history limit kept the thread from being read for the whole "
            "window), unreadable (Slack could not be asked, or the thread is longer than docbot "
            "reads)", ["reason"], registry=r,
        )  # fmt: skip
        self.marks_late = Counter(
            "docbot_marks_late", "Feedback marks the answer store had not taken within the 2 s "
            "docbot gives it before Slack's acknowledgement, by kind (reaction: refused for Slack "
            "to deliver again; reason: its form kept open to send again; press: acknowledged "
            "without it, lost if docbot stops before the write ends)", ["kind"], registry=r,
        )  # fmt: skip
        self.feedback_marks = Counter(
            "docbot_feedback_marks", "Feedback reactions recorded (added) or retracted "
            "(removed), by kind (wrong, helpful)", ["kind", "change"], registry=r,
        )  # fmt: skip
        self.in_flight = Gauge(
            "docbot_answers_in_flight", "Answers being worked out or posted now", registry=r
        )

    def answered(self, answer: Answer, seconds: float) -> None:
        """One answer the pipeline returned, `seconds` after it was asked."""
        self.questions.labels(answer.status.value).inc()
        self.stage_seconds.labels("answer").observe(seconds)
        for stage, ms in answer.timings_ms.items():
            self.stage_seconds.labels(stage).observe(ms / 1000)
        if answer.usage.input_tokens:
            self.model_tokens.labels("input").inc(answer.usage.input_tokens)
        if answer.usage.output_tokens:
            self.model_tokens.labels("output").inc(answer.usage.output_tokens)
        for dropped in answer.dropped_claims:
            self.claims_dropped.labels(dropped.reason).inc()

    def not_answered(self, status: str) -> None:
        """A question the pipeline did not answer: `input_error` (unusable: too long, only
        markup) or `error` (the pipeline raised)."""
        self.questions.labels(status).inc()

    def slack_error(self, method: str) -> None:
        self.slack_api_errors.labels(method).inc()

    def delivery_dropped(self, reason: str) -> None:
        self.deliveries_dropped.labels(reason).inc()

    def takeover_unchecked(self, reason: str) -> None:
        self.takeovers_unchecked.labels(reason).inc()

    def mark_late(self, kind: str) -> None:
        self.marks_late.labels(kind).inc()

    def feedback(self, kind: str, *, added: bool) -> None:
        self.feedback_marks.labels(kind, "added" if added else "removed").inc()

    def count_in_flight(self, pending: Callable[[], int]) -> None:
        """Read the gauge from `pending` at each scrape (InFlight.pending)."""
        self.in_flight.set_function(lambda: float(pending()))

    def exposition(self) -> bytes:
        """The Prometheus text format of everything counted so far."""
        return generate_latest(self.registry)
