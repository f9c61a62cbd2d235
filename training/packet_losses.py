"""Where the reader's packet loses a train question's answer before the reader reads it.

For each answerable docs `train` question whose packet (the one the extractive reader is given,
`extractive.PACKET_SIZE`) has no answer unit holding an expected string inside an expected file,
it tells where the right chunk (a chunk of an expected file holding an expected string) was lost:

- `no right chunk`: no chunk of the expected files holds an expected string whole (it spans a
  chunk boundary, or the file words it otherwise);
- `not in top N`: no right chunk in the top N when the search fuses BM25's and the dense
  side's top N each (`deep_rank`), for N = 100, 50, 20;
- `below the cut`: a right chunk is in the top 20 but ranked below the hits packed (k);
- `per_source_limit`, `budget`, `same_text_as`: it was a hit and packing left it out for that
  reason (grounding/evidence.py);
- `packed, split by units`: the chunk is packed but no answer unit holds the string whole.

It reads the `train` split only (the test split is never read) and prints one table, plus,
with `--list`, each lost question's category and the best rank of a right chunk.

    python training/packet_losses.py [--corpus NAME ...] [--state DIR] [--list]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.dev_questions import SETS, Question, corpus_config, load_questions
from grounding.evidence import EvidencePacket
from grounding.generators.extractive import PACKET_SIZE
from grounding.retriever import search_all
from retrieval.chunks import Chunk, Hit
from retrieval.config import AnswerConfig
from retrieval.embeddings import load_embedder
from retrieval.fusion import weighted
from retrieval.index import Index
from retrieval.scopes import ConversationKind, Scope, resolve_scope
from training.reader_data import Example, labelled, norm, packets

DEPTHS = (20, 50, 100)
ORDER = (
    "no right chunk",
    "not in top 100",
    "in top 100, not top 50",
    "in top 50, not top 20",
    "below the cut (top 20)",
    "per_source_limit",
    "budget",
    "same_text_as",
    "packed, split by units",
    "no packet",
)

# The loss of a right chunk whose best rank is first found within each of DEPTHS.
_RANKED_WITHIN = {
    20: "below the cut (top 20)",
    50: "in top 50, not top 20",
    100: "in top 100, not top 50",
}


@dataclass(frozen=True, slots=True)
class Loss:
    question: Question
    category: str
    ranks: tuple[int | None, ...]  # best rank of a right chunk at each of DEPTHS (None: absent)


def is_right(chunk: Chunk, q: Question) -> bool:
    return chunk.path in q.expected and any(norm(s) in norm(chunk.text) for s in q.strings)


def deep_rank(q: Question, index: Index, scope: Scope, depth: int) -> int | None:
    """The best rank of a right chunk when the search fuses BM25's and the dense side's top
    `depth` each (the index's own search fuses the top DEPTH = 20 of each, so it never ranks
    more than about 40 chunks however many hits are asked for)."""
    lexical, dense = index.candidates(q.question, scope, depth)
    ranked = lexical if dense is None else weighted(lexical, dense, depth, depth=depth)
    chunks = index.chunks(scope)
    return next((rank for rank, (p, _) in enumerate(ranked, 1) if is_right(chunks[p], q)), None)


def category(
    q: Question, packet: EvidencePacket | None, index: Index, scope: Scope, k: int
) -> tuple[str, tuple[int | None, ...]]:
    """Where `q`'s right chunk was lost (one of ORDER) and its best rank at each of DEPTHS;
    `k` is the number of hits the pipeline packs from."""
    chunks = index.chunks(scope)
    if not any(is_right(c, q) for c in chunks):
        return "no right chunk", (None,) * len(DEPTHS)
    ranks = {depth: deep_rank(q, index, scope, depth) for depth in DEPTHS}
    hits = search_all(index, [q.question], scope, k)
    return classify(ranks, packet, hits, lambda c: is_right(c, q)), tuple(ranks.values())


def classify(
    ranks: Mapping[int, int | None],
    packet: EvidencePacket | None,
    hits: Sequence[Hit],
    right: Callable[[Chunk], bool],
) -> str:
    """Where a right chunk (`right`) was lost, of ORDER, for a question some chunk answers:
    `ranks` its best rank at each of DEPTHS, `hits` what the packet was packed from."""
    if packet is None:
        return "no packet"
    if any(right(item.chunk) for item in packet.items):
        return "packed, split by units"
    right_ids = {h.chunk.chunk_id for h in hits if right(h.chunk)}
    reasons = {o.reason for o in packet.omitted if o.chunk_id in right_ids}
    for reason in ("per_source_limit", "budget", "same_text_as"):
        if reason in reasons:
            return reason
    for depth in DEPTHS:
        if ranks[depth] is not None:
            return _RANKED_WITHIN[depth]
    return "not in top 100"


def losses(corpus: str, state: Path) -> tuple[int, list[Loss]]:
    """The answerable train questions of `corpus` and those whose packet holds no right unit."""
    embedder = load_embedder()
    train = [q for q in load_questions(corpus) if q.split == "train" and q.answerable]
    config = corpus_config(corpus, state / corpus)
    found = packets(config, [q.question for q in train])
    index = Index.load(config)
    scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
    k = max(config.answer.k, PACKET_SIZE.k)
    out = []
    for q, packet in zip(train, found, strict=True):
        if packet is not None:
            example = Example("docs", q.question, True, q.expected, q.strings)
            if labelled(example, packet, embedder).labels.any():
                continue
        where, ranks = category(q, packet, index, scope, k)
        out.append(Loss(q, where, ranks))
    return len(train), out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", nargs="*", choices=sorted(SETS), default=sorted(SETS))
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    parser.add_argument("--list", action="store_true", help="print each lost question")
    args = parser.parse_args(argv)
    answerable, lost = 0, []
    for corpus in args.corpus:
        n, found = losses(corpus, args.state)
        answerable += n
        lost += found
    counts = Counter(loss.category for loss in lost)
    print(
        f"{len(lost)} of {answerable} answerable train questions have no right unit in the "
        f"packet ({PACKET_SIZE.evidence_tokens} tokens, {PACKET_SIZE.per_source_limit} per file, "
        f"k {max(AnswerConfig().k, PACKET_SIZE.k)}):"
    )
    for name in ORDER:
        print(f"  {name:>24}: {counts.get(name, 0)}")
    if args.list:
        for loss in sorted(lost, key=lambda x: (ORDER.index(x.category), x.question.corpus)):
            print(
                f"{loss.category:>24} | {loss.question.corpus} | ranks at {DEPTHS}: {loss.ranks} | "
                f"{loss.question.question}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
