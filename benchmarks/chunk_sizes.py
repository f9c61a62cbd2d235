"""Chunk sizes on the shared corpora: how many chunks, how big, and how many exceed the budget.

Usage: python benchmarks/chunk_sizes.py [--tokens N] [corpus ...]   (default: httpx-docs,
django-docs, python-docs-3.11 and peps). Tokens are counted with o200k_base, as the chunker
and the evidence packer count them. Prints, per corpus: files, chunks, p50 / p99 / max chunk
tokens (and the file holding the largest), and the chunks over the budget.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from retrieval.chunking import chunk_document
from retrieval.config import CollectionConfig
from retrieval.files import SourceText, find_files, read_source
from retrieval.tokens import TiktokenCounter

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
DEFAULT = ("httpx-docs", "django-docs", "python-docs-3.11", "peps")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpora", nargs="*", default=list(DEFAULT))
    parser.add_argument("--tokens", type=int, default=350, help="chunk budget (chunk_tokens)")
    args = parser.parse_args()
    counter = TiktokenCounter()
    for name in args.corpora:
        corpus = SHARED / name
        if not corpus.is_dir():
            print(f"{name}: skipped, {corpus} is absent")
            continue
        measure(CollectionConfig(name=name, path=corpus.resolve()), counter, args.tokens)


def measure(collection: CollectionConfig, counter: TiktokenCounter, budget: int) -> None:
    started = time.perf_counter()
    sizes: list[int] = []
    largest = (0, "")
    files = 0
    for path in find_files(collection).paths:
        source = read_source(collection, path, 5_000_000)
        if not isinstance(source, SourceText):
            continue
        files += 1
        for chunk in chunk_document(collection.name, path, source.text, "", counter, budget):
            tokens = counter.count(chunk.text)
            sizes.append(tokens)
            largest = max(largest, (tokens, f"{path}:{chunk.start_line}-{chunk.end_line}"))
    seconds = time.perf_counter() - started
    values = np.array(sizes)
    over = int((values > budget).sum())
    print(
        f"{collection.name}: {files} files, {len(sizes)} chunks (budget {budget}) | tokens p50 "
        f"{np.percentile(values, 50):.0f}, p99 {np.percentile(values, 99):.0f}, max "
        f"{largest[0]} ({largest[1]}) | over budget {over} | {seconds:.1f}s"
    )


if __name__ == "__main__":
    main()
