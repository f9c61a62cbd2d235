"""What a new assistant thread's suggested prompts cost at ~100k chunks: `top_headings` of
channel CA's scope (`pub` and `team-a`), on a whole load as `docbot serve` holds it.

Uses the corpus and configs of benchmarks/cold_search.py (index them there first, or with
`docbot index --config DIR/docbot-bm25.yml` and `docbot-dense.yml`). Two ways are timed, each
on a fresh load, by CPU time (best of --runs): the walk over every chunk of the scope (what
top_headings did before the index kept each collection's headings, and still does for a
retriever that can only list chunks), and the index's headings; for each, the first thread
after a load and every thread after it.

    python -m benchmarks.top_headings [--work DIR] [--files 600] [--runs 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.cold_search import configs
from grounding.retriever import top_headings
from retrieval.chunks import Chunk, Hit
from retrieval.config import load_config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, Scope, resolve_scope

SHOWN = 4  # bot/assistant.py's PROMPTS_SHOWN


class Listing:
    """The index seen as a retriever that can only list chunks: top_headings walks them (also
    the walk tests/retrieval/test_index_headings.py compares the index's headings with)."""

    def __init__(self, index: Index) -> None:
        self._index = index
        self.generation = index.generation

    def search(self, query: str, scope: Scope, k: int) -> tuple[Hit, ...]:
        return self._index.search(query, scope, k)

    def adjacent(self, chunk: Chunk) -> tuple[Chunk | None, Chunk | None]:
        return self._index.adjacent(chunk)

    def chunks(self, scope: Scope) -> tuple[Chunk, ...]:
        return self._index.chunks(scope)


def timed(config_path: Path, walk: bool) -> tuple[float, float, int]:
    """(first call's CPU seconds, a later call's, the scope's chunks) on a fresh whole load."""
    config = load_config(config_path)
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    index = Index.load(config)
    retriever = Listing(index) if walk else index
    started = time.process_time()
    first = top_headings(retriever, scope, SHOWN)
    middle = time.process_time()
    again = top_headings(retriever, scope, SHOWN)
    ended = time.process_time()
    assert first == again and len(first) == SHOWN, first
    chunks = sum(index.collections()[name][1] for name in scope.collections)
    return middle - started, ended - middle, chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/docbot-cold-search"))
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    work = args.work / f"files-{args.files}"
    for label, config in configs(work, args.files).items():
        for walk in (True, False):
            runs = [timed(config, walk) for _ in range(args.runs)]
            print(
                f"{label}, {'walk over the chunks' if walk else 'index headings'} "
                f"({runs[0][2]} chunks in CA's scope, CPU best of {args.runs}): first thread "
                f"after a load {min(r[0] for r in runs):.4f} s, later threads "
                f"{min(r[1] for r in runs):.4f} s"
            )


if __name__ == "__main__":
    main()
