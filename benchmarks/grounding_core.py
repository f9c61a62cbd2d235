"""The grounding core measured: how well verification separates supported from unsupported
claims, and what packing, prompting and verifying cost per question.

1. Verifier on SQuAD v1.1 dev sentences: each sentence as a claim against its own paragraph
   (should be accepted), against the next paragraph of the same article (should be rejected),
   with one number changed, and with a negation inserted (both should be rejected).
2. Cost on the httpx docs: real chunks and o200k_base counting, BM25 hits for the httpx question
   set, then pack / build_prompt / verify timings (p50/p95), packet tokens and neighbours.

    python benchmarks/grounding_core.py [--sentences N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from rank_bm25 import BM25Okapi

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.prompt import build_prompt
from grounding.schema import GroundedClaim, GroundedResponse
from grounding.untrusted import new_nonce
from grounding.verification import support_problem, verify
from retrieval.chunking import chunk_document
from retrieval.chunks import Chunk, Hit
from retrieval.scopes import ConversationKind, Scope
from retrieval.text import tokenize
from retrieval.tokens import TiktokenCounter

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
SQUAD = SHARED / "eval" / "squad" / "dev-v1.1.json"
HTTPX = SHARED / "corpora" / "httpx-docs"
QUESTIONS = REPO / "tests" / "grounding" / "httpx_questions.jsonl"
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
NUMBER = re.compile(r"(?<![\w.,])\d+(?![\w.,]\d)")
COPULA = re.compile(r"\b(is|was|are|were|has|had|can|will)\b")


def squad_sentences(limit: int) -> list[tuple[str, str, str]]:
    """(sentence, its paragraph, the next paragraph of the same article), up to `limit`."""
    data = json.loads(SQUAD.read_text(encoding="utf-8"))
    rows: list[tuple[str, str, str]] = []
    for article in data["data"]:
        contexts = [p["context"] for p in article["paragraphs"]]
        for i, context in enumerate(contexts[:-1]):
            for sentence in SENTENCE.split(context):
                if len(sentence.split()) >= 6:
                    rows.append((sentence, context, contexts[i + 1]))
    step = max(1, len(rows) // limit)
    return rows[::step][:limit]


def rate(pairs: Sequence[tuple[str, str]]) -> float:
    accepted = sum(support_problem(claim, evidence) is None for claim, evidence in pairs)
    return accepted / len(pairs) if pairs else float("nan")


def mutate_number(sentence: str) -> str | None:
    match = NUMBER.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + str(int(match.group(0)) + 7) + sentence[match.end() :]


def negate(sentence: str) -> str | None:
    match = COPULA.search(sentence)
    return None if match is None else sentence[: match.end()] + " not" + sentence[match.end() :]


def verifier_report(limit: int) -> None:
    rows = squad_sentences(limit)
    own = [(s, p) for s, p, _ in rows]
    other = [(s, n) for s, _, n in rows]
    numbers = [(m, p) for s, p, _ in rows if (m := mutate_number(s)) is not None]
    negated = [(m, p) for s, p, _ in rows if (m := negate(s)) is not None]
    started = time.perf_counter()
    print(f"verifier on SQuAD v1.1 dev sentences (n={len(rows)})")
    print(f"  accepted against own paragraph        {rate(own):7.2%}  (want ~100%)")
    print(f"  accepted against next paragraph       {rate(other):7.2%}  (want ~0%)")
    print(f"  accepted with a number changed (n={len(numbers)}) {rate(numbers):7.2%}  (want 0%)")
    print(f"  accepted with a negation added (n={len(negated)}) {rate(negated):7.2%}  (want ~0%)")
    total = len(own) + len(other) + len(numbers) + len(negated)
    elapsed = (time.perf_counter() - started) * 1e6 / total
    print(f"  support_problem: {elapsed:.0f} us per claim")


def httpx_chunks(counter: TiktokenCounter) -> list[Chunk]:
    chunks: list[Chunk] = []
    for path in sorted(HTTPX.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(HTTPX).as_posix()
        chunks += chunk_document("httpx", rel, text, "2026-01-01", counter, 350)
    return chunks


def percentiles(values: Sequence[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"p50 {statistics.median(ordered):8.2f}  p95 {p95:8.2f}"


def cost_report() -> None:
    counter = TiktokenCounter()
    chunks = httpx_chunks(counter)
    bm25 = BM25Okapi([tokenize(c.text) for c in chunks])
    position = {c.chunk_id: i for i, c in enumerate(chunks)}
    adjacent = _adjacent(chunks, position)
    questions = [json.loads(line)["question"] for line in QUESTIONS.read_text().splitlines()]
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))
    timings: dict[str, list[float]] = {"pack": [], "prompt": [], "verify": []}
    tokens: list[float] = []
    neighbours = 0
    for question in questions:
        scores = bm25.get_scores(tokenize(question))
        top = sorted(range(len(chunks)), key=lambda i: -scores[i])[:12]
        hits = [Hit(chunks[i], float(scores[i]), r) for r, i in enumerate(top, 1)]
        packet = _one_question(question, scope, hits, counter, adjacent, timings)
        tokens.append(packet.tokens)
        neighbours += sum(i.neighbour for i in packet.items)
    print(f"\ncost on httpx docs ({len(chunks)} chunks, {len(questions)} questions, k=12)")
    for stage, values in timings.items():
        print(f"  {stage:<7} ms  {percentiles(values)}")
    print(f"  packet tokens {percentiles(tokens)}  (budget {PackPolicy().evidence_tokens})")
    print(f"  neighbours added: {neighbours} over {len(questions)} packets")


def _one_question(
    question: str,
    scope: Scope,
    hits: Sequence[Hit],
    counter: TiktokenCounter,
    adjacent: Callable[[Chunk], tuple[Chunk | None, Chunk | None]],
    timings: dict[str, list[float]],
) -> EvidencePacket:
    started = time.perf_counter()
    packet = pack(question, scope, "g", hits, PackPolicy(), counter, adjacent, nonce=new_nonce())
    timings["pack"].append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    build_prompt(packet)
    timings["prompt"].append((time.perf_counter() - started) * 1000)
    claims = [_echo_claim(i.label, i.chunk.text.splitlines()[-1]) for i in packet.items]
    echo = GroundedResponse(status="answered", message="", claims=claims)
    started = time.perf_counter()
    verify(echo, packet, lambda _: None)
    timings["verify"].append((time.perf_counter() - started) * 1000)
    return packet


def _echo_claim(label: str, line: str) -> GroundedClaim:
    # A line of the item, quoting itself: the verifier's full path, quote search included.
    return GroundedClaim(text=line, citations=[label], quotes=[line])


def _adjacent(
    chunks: Sequence[Chunk], position: dict[str, int]
) -> Callable[[Chunk], tuple[Chunk | None, Chunk | None]]:
    def adjacent(chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        i = position[chunk.chunk_id]
        before = chunks[i - 1] if i > 0 and chunks[i - 1].path == chunk.path else None
        after = chunks[i + 1] if i + 1 < len(chunks) and chunks[i + 1].path == chunk.path else None
        return before, after

    return adjacent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sentences", type=int, default=3000)
    args = parser.parse_args()
    if not SQUAD.is_file() or not HTTPX.is_dir():
        sys.exit(f"{SHARED} is absent: this benchmark reads the shared corpora")
    verifier_report(args.sentences)
    cost_report()


if __name__ == "__main__":
    main()
