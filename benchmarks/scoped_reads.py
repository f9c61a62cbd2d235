"""What one channel's search reads of the snapshots at ~100k chunks, in one process.

Uses the corpus and configs of benchmarks/cold_search.py (`pub` public, `team-a` private to
CA, `team-b` private to CB; index it there first). For each of a whole load (`docbot serve`,
`docbot ask`) and a scoped load (`docbot search --channel CA`), it prints the time to load,
then to search CA's scope and to ask each hit's neighbours (as an answer's evidence packing
does, `Index.adjacent`), the bytes the process read by read() meanwhile (/proc/self/io
`rchar`; a memory-mapped file's pages are not counted there, only their faults as RSS), and
how many chunks of each collection were built from their snapshot files (CB's `team-b` is
none of CA's business).

    python -m benchmarks.scoped_reads [--work DIR] [--files 600] [--runs 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time
from pathlib import Path

from benchmarks.cold_search import a_query, configs
from retrieval.config import load_config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope


def read_bytes() -> int:
    for line in Path("/proc/self/io").read_text("ascii").splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise SystemExit("no rchar in /proc/self/io")


def one_run(config_path: Path, query: str, scoped: bool) -> tuple[float, float, int, str]:
    """(load seconds, search + neighbours seconds, bytes read, chunks built per collection)."""
    config = load_config(config_path)
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    before, started = read_bytes(), time.process_time()
    index = Index.load(config, collections=scope.collections if scoped else None)
    loaded = time.process_time()
    hits = index.search(query, scope, 8)
    for hit in hits:
        index.adjacent(hit.chunk)
    searched = time.process_time()
    assert hits, "the query finds nothing: not the corpus of benchmarks.cold_search"
    counts = index.collections()
    built = ", ".join(
        f"{name} {count}/{counts[name][1]}" for name, count in sorted(index.built().items())
    )
    return loaded - started, searched - loaded, read_bytes() - before, built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/docbot-cold-search"))
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bm25", action="store_true", help="the BM25-only config")
    args = parser.parse_args()
    work = args.work / f"files-{args.files}"
    config = configs(work, args.files)["bm25" if args.bm25 else "dense"]
    query = a_query(work)
    for scoped in (False, True):
        runs = [one_run(config, query, scoped) for _ in range(args.runs)]
        loads, searches = [r[0] for r in runs], [r[1] for r in runs]
        print(
            f"{'scoped' if scoped else 'whole'} load ({config.stem}, CPU, {args.runs} runs): "
            f"load best {min(loads):.3f} s (median {statistics.median(loads):.3f}), "
            f"search + neighbours best {min(searches):.3f} s "
            f"(median {statistics.median(searches):.3f}); read {runs[-1][2] / 1e6:.1f} MB; "
            f"chunks built: {runs[-1][3]}"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the process {peak:.0f} MB")


if __name__ == "__main__":
    main()
