"""Ingestion speed: read, chunk and token-count the shared reST corpora on one core.

Usage: python benchmarks/ingest.py [--tokens N] [corpus ...]   (default: django-docs,
python-docs-3.11 and peps, about 31 MB). Prints MB, files, chunks and seconds per stage,
then the time of a second, incremental scan in which nothing changed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from retrieval.chunking import chunk_document
from retrieval.collections import scan_collection
from retrieval.config import CollectionConfig, SearchConfig
from retrieval.files import SourceText, find_files, read_source
from retrieval.tokens import TiktokenCounter

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
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
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpora", nargs="*", default=list(DEFAULT))
    parser.add_argument("--tokens", type=int, default=350, help="chunk budget (chunk_tokens)")
    args = parser.parse_args()
    counter = TiktokenCounter()
    counter.count("warm up")  # loading the encoding is not part of the measurement
    for name in args.corpora:
        corpus = SHARED / name
        if not corpus.is_dir():
            print(f"{name}: skipped, {corpus} is absent")
            continue
        bench(CollectionConfig(name=name, path=corpus.resolve()), counter, args.tokens)


def bench(collection: CollectionConfig, counter: TiktokenCounter, tokens: int) -> None:
    t0 = time.perf_counter()
    sources = [
        s
        for p in find_files(collection).paths
        if isinstance(s := read_source(collection, p, 5_000_000), SourceText)
    ]
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
