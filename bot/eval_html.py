"""The `docbot eval --html` page: one self-contained file, every value escaped.

No scripts, fonts, images or links to fetch: inline CSS and an inline SVG chart, so the page
opens the same from a CI artifact, an email attachment or a laptop offline.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from bot.render.no_answer import no_answer_text
from grounding.answer import AnswerStatus
from grounding.evaluation.questions import EvalQuestion
from grounding.evaluation.run import Figures, Result, failures
from grounding.evaluation.scoring import cites_expected, gold_in_claim, refused
from retrieval.chunks import Chunk

PASSAGE_CHARS = 1200  # of each retrieved passage shown under a failure
_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em}
table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;vertical-align:top}
.fail{border:1px solid #ccc;border-radius:6px;padding:.6em 1em;margin:1em 0}
.q{font-weight:600}.meta{color:#666}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5em}
.omitted{color:#888}
"""
_BAR_COLOURS = ("#2b7a3d", "#2b5a7a", "#a05a2b", "#7a2b5a")


def render_report(
    name: str,
    scope: str,
    f: Figures,
    results: Sequence[Result],
    chunks: Mapping[str, Chunk],
) -> str:
    """The page for one run of the question set `name` in `scope`."""
    failed = failures(results)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>docbot eval: {_e(name)}</title><style>{_STYLE}</style></head><body>",
        f"<h1>docbot eval: {_e(name)}</h1>",
        f'<p class="meta">{_e(scope)}; generator {_e(", ".join(f.generators) or "none ran")}</p>',
        _figures_table(f),
        _chart(f),
        f"<h2>Not right ({len(failed)} of {len(results)})</h2>",
        *(_failure(r, chunks) for r in failed),
        "</body></html>",
    ]
    return "\n".join(parts) + "\n"


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def share(n: int, of: int) -> str:
    return f"{n / of:.3f} ({n}/{of})" if of else "n/a (none in the set)"


def figure_rows(f: Figures) -> tuple[tuple[str, str], ...]:
    """The run's figures as (label, value) rows: one wording for the terminal and the page."""
    dropped = ", ".join(f"{reason} {n}" for reason, n in f.dropped) or "none"
    return (
        ("answered right", share(f.answered_right, f.answerable)),
        ("refused when uncovered", share(f.uncovered_refused, f.uncovered)),
        ("answerable refused", share(f.answerable_refused, f.answerable)),
        ("errors", str(f.errors)),
        (
            "gated (model not called)",
            f"uncovered {share(f.gated_uncovered, f.uncovered)}, "
            f"answerable {share(f.gated_answerable, f.answerable)}",
        ),
        ("claims dropped", dropped),
        ("latency ms", f"p50 {f.p50_ms:.1f}, p95 {f.p95_ms:.1f}"),
        ("tokens", f"{f.input_tokens:,} in, {f.output_tokens:,} out"),
    )


def label(q: EvalQuestion) -> str:
    """`line 3 rb1`, or `line 3` for a question without an id of its own."""
    own = q.id != f"line {q.line}"
    return f"line {q.line} {q.id}" if own else f"line {q.line}"


def why_not_right(r: Result) -> str:
    """The check a not-right answer failed, in the question set's terms."""
    q, a = r.question, r.answer
    if a.status is AnswerStatus.ERROR:
        return f"an error: {a.error_detail}"
    if not q.answerable:
        if a.status is AnswerStatus.ANSWERED:
            return "answered an uncovered question"
        return f"{a.status.value}, not not_found"
    if a.status is not AnswerStatus.ANSWERED:
        return "not_found for an answerable question" if refused(a) else a.status.value
    misses = []
    if q.expected and not cites_expected(a, q):
        misses.append(f"no claim cites {' or '.join(q.expected)}")
    if q.strings and not gold_in_claim(a, q):
        misses.append(f"no claim holds {' or '.join(repr(s) for s in q.strings)}")
    return "; ".join(misses)


def _figures_table(f: Figures) -> str:
    cells = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in figure_rows(f))
    return f"<table>{cells}</table>"


def _chart(f: Figures) -> str:
    """Bars for the shares (of 1), the dropped claims (of the most) and latency (of p95)."""
    bars: list[tuple[str, float, str]] = [
        (
            "answered right",
            _ratio(f.answered_right, f.answerable),
            share(f.answered_right, f.answerable),
        ),
        (
            "refused when uncovered",
            _ratio(f.uncovered_refused, f.uncovered),
            share(f.uncovered_refused, f.uncovered),
        ),
        (
            "answerable refused",
            _ratio(f.answerable_refused, f.answerable),
            share(f.answerable_refused, f.answerable),
        ),
    ]
    most = max((n for _, n in f.dropped), default=0)
    bars += [(f"dropped: {reason}", _ratio(n, most), str(n)) for reason, n in f.dropped]
    bars += [
        ("latency p50 ms", _ratio(f.p50_ms, f.p95_ms), f"{f.p50_ms:.1f}"),
        ("latency p95 ms", 1.0 if f.p95_ms else 0.0, f"{f.p95_ms:.1f}"),
    ]
    row, label_w, bar_w = 26, 190, 360
    height = row * len(bars) + 10
    shapes = []
    for i, (name, ratio, value) in enumerate(bars):
        y = 5 + i * row
        # Green where more is better; the losses (answerable refused, dropped claims) in brown.
        lost = name == "answerable refused" or name.startswith("dropped")
        colour = _BAR_COLOURS[2 if lost else 0 if i < 3 else 1]
        shapes.append(
            f'<text x="{label_w - 8}" y="{y + 16}" text-anchor="end">{_e(name)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="18" fill="#eee"/>'
            f'<rect x="{label_w}" y="{y + 3}" width="{ratio * bar_w:.1f}" height="18" '
            f'fill="{colour}"/>'
            f'<text x="{label_w + bar_w + 8}" y="{y + 16}">{_e(value)}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{label_w + bar_w + 140}" '
        f'height="{height}" font-size="13"><title>eval figures</title>{"".join(shapes)}</svg>'
    )


def _ratio(n: float, of: float) -> float:
    return max(0.0, min(1.0, n / of)) if of else 0.0


def _failure(r: Result, chunks: Mapping[str, Chunk]) -> str:
    q, a = r.question, r.answer
    want = (
        f"expected: cites {', '.join(q.expected) or 'any file'}; holds "
        f"{' or '.join(repr(s) for s in q.strings) or 'anything'}"
        if q.answerable
        else "expected: not_found (the docs do not cover it)"
    )
    parts = [
        '<div class="fail">',
        f'<p class="q">{_e(q.question)}</p>',
        f'<p class="meta">{_e(label(q))}; {_e(want)}; got {_e(a.status.value)} '
        f"in {r.ms:.0f} ms</p>",
        f"<p><b>Not right:</b> {_e(why_not_right(r))}</p>",
    ]
    if a.gate is not None and not a.gate.near:
        parts.append(
            f"<p>Gated before the generator: nearness {a.gate.nearness:.3f} is below the "
            f"threshold {_e(a.gate.threshold)}, so no model was called.</p>"
        )
    why = no_answer_text(a) if not a.claims else ""
    if why:
        parts.append(f"<p>{_e(why)}</p>")
    if a.claims:
        items = "".join(
            f"<li>{_e(c.text)} {_e(''.join(f'[{n}]' for n in c.citations))}</li>" for c in a.claims
        )
        parts.append(f"<p>Claims</p><ul>{items}</ul>")
    if a.dropped_claims:
        items = "".join(
            f"<li>{_e(d.reason)}: {_e(d.text)} <span class='meta'>{_e(d.detail)}</span></li>"
            for d in a.dropped_claims
        )
        parts.append(f"<p>Dropped claims</p><ul>{items}</ul>")
    if a.sources:
        items = "".join(
            f"<li>[{s.n}] {_e(s.collection)}/{_e(s.path)} L{s.start_line}-{s.end_line}</li>"
            for s in a.sources
        )
        parts.append(f"<p>Sources</p><ul>{items}</ul>")
    parts.append(_evidence(r, chunks))
    parts.append("</div>")
    return "\n".join(parts)


def _evidence(r: Result, chunks: Mapping[str, Chunk]) -> str:
    """The retrieved passages the evidence packet was packed from, and why any were left out."""
    if not r.answer.retrieved:
        return "<p class='meta'>Retrieval found nothing in this scope.</p>"
    omitted = {o.chunk_id: o for o in r.answer.omitted}
    items = []
    for hit in r.answer.retrieved:
        chunk = chunks.get(hit.chunk_id)
        where = f"{hit.collection}/{hit.path}"
        if chunk is not None:
            where += f" L{chunk.start_line}-{chunk.end_line}"
        left_out = omitted.get(hit.chunk_id)
        note = f" (left out: {left_out.reason})" if left_out else ""
        text = chunk.text[:PASSAGE_CHARS] if chunk is not None else ""
        cls = " class='omitted'" if left_out else ""
        items.append(
            f"<li{cls}>{_e(where)} score {hit.score:.3f}{_e(note)}<pre>{_e(text)}</pre></li>"
        )
    summary = f"<summary>Evidence: {len(items)} retrieved passages</summary>"
    return f"<details>{summary}<ol>{''.join(items)}</ol></details>"
