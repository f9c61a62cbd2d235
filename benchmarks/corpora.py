"""What the corpus benchmarks share: the ../shared corpora, chosen on the command line and read
the way ingestion reads them."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from retrieval.config import CollectionConfig
from retrieval.files import SourceText, find_files, read_source

CORPORA = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"
# Large enough for every shared file: the benchmarks measure the chunker, not the size limit.
MAX_BYTES = 5_000_000


def chosen_collections(
    description: str | None, default: Sequence[str]
) -> tuple[list[CollectionConfig], int]:
    """The corpora named on the command line (else `default`) as collections, saying which are
    absent, and the chunk budget (`--tokens`)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("corpora", nargs="*", default=list(default))
    parser.add_argument("--tokens", type=int, default=350, help="chunk budget (chunk_tokens)")
    args = parser.parse_args()
    collections = []
    for name in args.corpora:
        corpus = CORPORA / name
        if not corpus.is_dir():
            print(f"{name}: skipped, {corpus} is absent")
            continue
        collections.append(CollectionConfig(name=name, path=corpus.resolve()))
    tokens: int = args.tokens
    return collections, tokens


def read_sources(collection: CollectionConfig) -> list[SourceText]:
    """Every text file of the collection that ingestion would read."""
    return [
        source
        for path in find_files(collection).paths
        if isinstance(source := read_source(collection, path, MAX_BYTES), SourceText)
    ]


def corpora_absent() -> bool:
    """Whether ../shared/corpora is missing, having said so on stderr (the caller exits 2)."""
    if CORPORA.is_dir():
        return False
    print(f"../shared is absent: no corpora at {CORPORA}", file=sys.stderr)
    return True
