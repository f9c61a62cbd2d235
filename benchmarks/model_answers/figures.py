"""Kept and dropped rates by kind, from the outcome of every replayed claim; the issue's table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from benchmarks.model_answers.answers import STYLES, UNFAITHFUL
from benchmarks.model_answers.run import ClaimOutcome

# Issue 9's targets, on a split nothing was tuned on.
TARGET_FAITHFUL_KEPT = 0.95
TARGET_INTACT = 0.85
TARGET_DROPPED = 0.90


@dataclass(frozen=True, slots=True)
class Rate:
    hits: int
    total: int

    @property
    def share(self) -> float:
        return self.hits / self.total if self.total else 0.0

    def __str__(self) -> str:
        return f"{self.hits}/{self.total} = {self.share:.2f}" if self.total else "n/a"


@dataclass(frozen=True, slots=True)
class Figures:
    faithful_kept: Rate
    kept_by_style: dict[str, Rate]
    answers_intact: Rate  # faithful answers shown with every claim
    unfaithful_dropped: Rate
    dropped_by_kind: dict[str, Rate]
    not_replayed: int  # claims whose quotes no retrieved item held (retrieval, not verification)
    errors: int  # claims of answers that ended in `error` or could not be matched


def figures(outcomes: Sequence[ClaimOutcome]) -> Figures:
    replayed = [o for o in outcomes if o.outcome != "not_replayed"]
    faithful = [o for o in replayed if o.claim.faithful]
    unfaithful = [o for o in replayed if not o.claim.faithful]
    by_answer: dict[tuple[str, str], list[ClaimOutcome]] = {}
    for o in replayed:
        by_answer.setdefault((o.api, o.answer.id), []).append(o)
    intact = [
        all(o.outcome == "kept" for o in os) for os in by_answer.values() if os[0].answer.faithful
    ]
    return Figures(
        faithful_kept=_rate(faithful, "kept"),
        kept_by_style={
            s: _rate([o for o in faithful if o.claim.style == s], "kept") for s in STYLES
        },
        answers_intact=Rate(sum(intact), len(intact)),
        unfaithful_dropped=_rate(unfaithful, "dropped"),
        dropped_by_kind={
            k: _rate([o for o in unfaithful if o.claim.kind == k], "dropped") for k in UNFAITHFUL
        },
        not_replayed=sum(o.outcome == "not_replayed" for o in outcomes),
        errors=sum(o.outcome in ("error", "unmatched") for o in outcomes),
    )


def _rate(outcomes: Sequence[ClaimOutcome], outcome: str) -> Rate:
    return Rate(sum(o.outcome == outcome for o in outcomes), len(outcomes))


def table(f: Figures) -> str:
    """The figures as issue 9's markdown table, with every style and kind on its own row."""
    rows = [
        "| | result | target |",
        "|---|---|---|",
        f"| faithful claims kept | {f.faithful_kept} | >= {TARGET_FAITHFUL_KEPT} |",
        *(f"| - {s} | {r} | |" for s, r in f.kept_by_style.items() if r.total),
        f"| faithful answers shown with every claim | {f.answers_intact} | >= {TARGET_INTACT} |",
        f"| unfaithful claims dropped | {f.unfaithful_dropped} | >= {TARGET_DROPPED} each |",
        *(f"| - {k} | {r} | |" for k, r in f.dropped_by_kind.items() if r.total),
    ]
    if f.not_replayed or f.errors:
        rows.append(
            f"| not replayed (quote not retrieved) / error | {f.not_replayed} / {f.errors} | 0 |"
        )
    return "\n".join(rows)


def misses(outcomes: Sequence[ClaimOutcome]) -> list[str]:
    """One line per claim the verifier got wrong: kept though unfaithful, dropped though right."""
    lines = []
    for o in outcomes:
        if o.claim.faithful and o.outcome == "dropped":
            lines.append(
                f"  dropped though right [{o.claim.style}] {o.answer.id}: "
                f"{o.claim.text!r} ({o.detail})"
            )
        elif not o.claim.faithful and o.outcome == "kept":
            lines.append(f"  kept though wrong [{o.claim.kind}] {o.answer.id}: {o.claim.text!r}")
        elif o.outcome in ("error", "unmatched", "not_replayed"):
            lines.append(f"  {o.outcome} {o.answer.id}: {o.claim.text!r} ({o.detail})")
    return lines
