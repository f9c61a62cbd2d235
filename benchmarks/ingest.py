"""Ingestion speed: read, chunk and token-count the shared reST corpora on one core.

Usage: python -m benchmarks.ingest [--tokens N] [corpus ...]   (default: django-docs,
python-docs-3.11 and peps, about 31 MB). Prints MB, files, chunks and seconds per stage,
then the time of a second, incremental scan in which nothing changed.
"""

from __future__ import annotations

import time

from benchmarks.corpora import chosen_collections, read_sources
from retrieval.chunking import chunk_document
from retrieval.collections import scan_collection
from retrieval.config import CollectionConfig, SearchConfig
from retrieval.tokens import TiktokenCounter

DEFAULT = ("django-docs", "python-docs-3.11", "peps")


class CountingCounter:
    """Wraps the real counter to report how many times, and on how much text, it was called."""

    def __init__(self, inner: TiktokenCounter) -> None:
        self.inner, self.calls, self.chars = inner, 0, 0

    def count(self, text: str) -> int:
        self.calls += 1
        self.chars += len(text)
        return self.inner.count(text)


def main() -> None:
    collections, tokens = chosen_collections(__doc__, DEFAULT)
    counter = TiktokenCounter()
    counter.count("warm up")  # loading the encoding is not part of the measurement
    for collection in collections:
        bench(collection, counter, tokens)


def bench(collection: CollectionConfig, counter: TiktokenCounter, tokens: int) -> None:
    t0 = time.perf_counter()
    sources = read_sources(collection)
    t1 = time.perf_counter()
    counting = CountingCounter(counter)
    chunks = sum(
        len(chunk_document(collection.name, s.path, s.text, "", counting, tokens)) for s in sources
    )
    t2 = time.perf_counter()
    megabytes = sum(len(s.text.encode()) for s in sources) / 1e6
    search = SearchConfig(chunk_tokens=tokens)
    first, _ = scan_collection(collection, search, counter, None)
    t3 = time.perf_counter()
    _, changes = scan_collection(collection, search, counter, first)
    t4 = time.perf_counter()
    print(
        f"{collection.name}: {megabytes:.1f} MB, {len(sources)} files, {chunks} chunks "
        f"(budget {tokens}) | read {t1 - t0:.2f}s | chunk+count {t2 - t1:.2f}s "
        f"({chunks / (t2 - t1):,.0f} chunks/s, {counting.calls} counter calls) | "
        f"full scan {t3 - t2:.2f}s | rescan, nothing changed {t4 - t3:.2f}s "
        f"({changes.unchanged} unchanged)"
    )


if __name__ == "__main__":
    main()
