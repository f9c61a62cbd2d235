"""Chunk sizes on the shared corpora: how many chunks, how big, and how many exceed the budget.

Usage: python -m benchmarks.chunk_sizes [--tokens N] [corpus ...]   (default: httpx-docs,
django-docs, python-docs-3.11 and peps). Tokens are counted with o200k_base, as the chunker
and the evidence packer count them. Prints, per corpus: files, chunks, p50 / p99 / max chunk
tokens (and the file holding the largest), and the chunks over the budget.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.corpora import chosen_collections, read_sources
from retrieval.chunking import chunk_document
from retrieval.config import CollectionConfig
from retrieval.tokens import TiktokenCounter

DEFAULT = ("httpx-docs", "django-docs", "python-docs-3.11", "peps")


def main() -> None:
    collections, tokens = chosen_collections(__doc__, DEFAULT)
    counter = TiktokenCounter()
    for collection in collections:
        measure(collection, counter, tokens)


def measure(collection: CollectionConfig, counter: TiktokenCounter, budget: int) -> None:
    started = time.perf_counter()
    sizes: list[int] = []
    largest = (0, "")
    sources = read_sources(collection)
    for source in sources:
        chunks = chunk_document(collection.name, source.path, source.text, "", counter, budget)
        for chunk in chunks:
            tokens = counter.count(chunk.text)
            sizes.append(tokens)
            largest = max(largest, (tokens, f"{source.path}:{chunk.start_line}-{chunk.end_line}"))
    seconds = time.perf_counter() - started
    values = np.array(sizes)
    over = int((values > budget).sum())
    print(
        f"{collection.name}: {len(sources)} files, {len(sizes)} chunks (budget {budget}) | "
        f"tokens p50 {np.percentile(values, 50):.0f}, p99 {np.percentile(values, 99):.0f}, max "
        f"{largest[0]} ({largest[1]}) | over budget {over} | {seconds:.1f}s"
    )


if __name__ == "__main__":
    main()
