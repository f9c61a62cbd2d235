"""A model stand-in for the fake OpenAI server: replays one written answer, citing from the prompt.

The answer names its evidence by quote; this reads the evidence blocks of the request's prompt
and cites, for each quote, the first item whose text holds it (whitespace collapsed), as a model
that read the prompt would. A `wrong_evidence` claim cites the first item of another document
instead. A claim whose quotes are in no item was not retrievable with this index: it is
left out of the reply (no model could have quoted it) and listed in `unresolved`. `quotes` is
sent only when the request's schema has that field, as under strict mode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks.model_answers.answers import ModelAnswer, ModelClaim, flat
from tests.grounding.fake_openai import Recorded, Reply, http_error, raw_text
from tests.grounding.rewrite_harness import is_rewrite, queries

_BLOCK = re.compile(
    r'^\[(E\d+)\]\n<(untrusted-source(?:-[0-9a-z]+)?) id="\1">\n(.*?)\n</\2>$', re.M | re.S
)
_QUESTION = re.compile(r"\n\nQuestion: (.*)\n?\Z", re.S)


@dataclass(frozen=True, slots=True)
class Evidence:
    label: str
    source: str  # collection/path, from the block's `source:` line
    text: str  # the block's body (metadata lines and chunk text), whitespace collapsed


def evidence_of(prompt: str) -> tuple[Evidence, ...]:
    """The evidence blocks of a prompt built by grounding.prompt.build_prompt, in order."""
    return tuple(
        Evidence(m.group(1), _source(m.group(3)), flat(m.group(3))) for m in _BLOCK.finditer(prompt)
    )


def _source(body: str) -> str:
    first = body.split("\n", 1)[0]
    return first.removeprefix("source: ") if first.startswith("source: ") else ""


def question_of(prompt: str) -> str:
    match = _QUESTION.search(prompt)
    return match.group(1).strip() if match else ""


def citations_for(claim: ModelClaim, evidence: Sequence[Evidence]) -> list[str] | None:
    """The labels the claim cites, or None when no item holds any of its quotes."""
    holders = [next((e.label for e in evidence if flat(q) in e.text), None) for q in claim.quotes]
    found = list(dict.fromkeys(h for h in holders if h is not None))
    if not found:
        return None
    if claim.kind == "wrong_evidence":
        # Another document, so the cited item cannot happen to say the same thing.
        sources = {e.source for e in evidence if e.label in found}
        other = [e.label for e in evidence if e.source not in sources]
        return other[:1] or None
    return found


@dataclass
class ReplayModel:
    """Serves `current` for every request; set it before each question (one answer at a time).

    A query-rewrite request (answer.rewrite, made for a question not in English) gets the
    rewrites written for the current question in `rewrites` (question id -> queries; see
    benchmarks/query_rewrite.py), none when there are none.
    """

    current: ModelAnswer | None = None
    rewrites: Mapping[str, Sequence[str]] = field(default_factory=dict)
    unresolved: list[tuple[str, str]] = field(default_factory=list)  # (answer id, claim text)
    requests: int = 0

    def __call__(self, recorded: Recorded) -> Reply:
        self.requests += 1
        answer = self.current
        if answer is not None and is_rewrite(recorded):
            return queries(*self.rewrites.get(answer.question_id, ()))
        prompt = _prompt(recorded)
        if answer is None or question_of(prompt) != answer.question:
            # Loud: the driver and the pipeline disagree about which question this is.
            return http_error(400, f"replay: no answer set for {question_of(prompt)!r}")
        evidence = evidence_of(prompt)
        quotes = _schema_has_quotes(recorded.body)
        claims: list[dict[str, Any]] = []
        for claim in answer.claims:
            cited = citations_for(claim, evidence)
            if cited is None:
                if _is_first(recorded.body):
                    self.unresolved.append((answer.id, claim.text))
                continue
            out: dict[str, Any] = {"text": claim.text, "citations": cited}
            if quotes:
                out["quotes"] = list(claim.quotes)
            claims.append(out)
        status = "answered" if claims else "insufficient_context"
        message = "" if claims else "The evidence does not hold what the answer would quote."
        return raw_text(json.dumps({"status": status, "claims": claims, "message": message}))


def _user_texts(body: dict[str, Any]) -> list[str]:
    messages = body.get("input") or body.get("messages") or []
    return [str(m.get("content", "")) for m in messages if m.get("role") == "user"]


def _prompt(recorded: Recorded) -> str:
    texts = _user_texts(recorded.body)
    return texts[0] if texts else ""


def _is_first(body: dict[str, Any]) -> bool:
    """Not the regeneration (which carries a correction as a second user turn)."""
    return len(_user_texts(body)) == 1


def _schema_has_quotes(body: dict[str, Any]) -> bool:
    """Whether the claim object of the request's JSON schema has a `quotes` property."""
    schema = (body.get("text") or {}).get("format", {}).get("schema") or (
        (body.get("response_format") or {}).get("json_schema", {}).get("schema")
    )
    return _has_quotes(schema)


def _has_quotes(node: object) -> bool:
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and "citations" in props and "quotes" in props:
            return True
        return any(_has_quotes(v) for v in node.values())
    if isinstance(node, list):
        return any(_has_quotes(v) for v in node)
    return False
