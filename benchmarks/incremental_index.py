"""What a one-file change costs `docbot index` at ~100k chunks, and where the time goes.

A synthetic corpus (seeded pseudo-words, Zipf-distributed) is written once under --work
(default /tmp/docbot-incremental): three collections, one public and two private ones each
read by its own channel, so the build makes three engines (public; public + a; public + b).
The first run builds the index from nothing; then one file of the public collection and one
of a private collection are edited in turn, and each rebuild is timed (and profiled with
--profile). BM25 only (`retrieval.dense: false`): dense vectors of a changed file are
re-embedded alone already, so the question here is the engines and the snapshots.

    python -m benchmarks.incremental_index [--work DIR] [--files 2000] [--profile]
        [--in-process | --cli]

--in-process builds as `docbot serve`'s sync loop does: one SnapshotCache across the builds,
so the previous snapshots are checked on disk but not unpickled again (by default each build
reads them as `docbot index`, a new process each time, must).

--cli runs each rebuild as that new process, `python -m bot.cli index --config ...`, and prints
its wall time, CPU time and peak RSS (imports and tiktoken's table included); the first,
unmeasured run also compiles the modules' bytecode, as an installed docbot has it.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import resource
import time
from pathlib import Path

import yaml

from retrieval.config import Config, load_config
from retrieval.index import Index, build_index
from retrieval.manifest import SnapshotCache
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.sources import SyncOutcome
from retrieval.tokens import TiktokenCounter

SECTIONS = 50  # per file; each section is one chunk at 80-token chunks
COLLECTIONS: tuple[tuple[str, float, str, tuple[str, ...]], ...] = (
    ("pub", 0.4, "public", ()),
    ("team-a", 0.3, "private", ("CA",)),
    ("team-b", 0.3, "private", ("CB",)),
)


def no_sync(config: Config) -> tuple[SyncOutcome, ...]:
    return ()


def words(rng: random.Random, vocab: list[str], count: int) -> str:
    return " ".join(rng.choices(vocab, weights=ZIPF, k=count))


VOCAB_SIZE = 30_000
ZIPF = [1 / (rank + 1) for rank in range(VOCAB_SIZE)]


def section(rng: random.Random, vocab: list[str], n: int) -> str:
    return f"## {words(rng, vocab, 4)} {n}\n\n{words(rng, vocab, 45)}.\n"


def make_corpus(work: Path, files: int) -> Path:
    """The corpus and its config, written once (kept between runs)."""
    config = work / "docbot.yml"
    if config.exists():
        return config
    rng = random.Random(11)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(VOCAB_SIZE)]
    collections = []
    for name, share, access, channels in COLLECTIONS:
        folder = work / "corpus" / name
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(int(files * share)):
            body = "".join(section(rng, vocab, n) for n in range(SECTIONS))
            (folder / f"page-{i:05d}.md").write_text(f"# {name} page {i}\n\n{body}", "utf-8")
        entry: dict[str, object] = {"name": name, "path": str(folder), "access": access}
        if channels:
            entry["channels"] = list(channels)
        collections.append(entry)
    raw = {
        "state_dir": str(work / "state"),
        "teams": ["T1"],
        "collections": collections,
        "search": {"engine": "tantivy", "chunk_tokens": 80},
        "retrieval": {"dense": False},
    }
    config.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return config


def edit(work: Path, collection: str, run: int) -> None:
    page = work / "corpus" / collection / "page-00007.md"
    page.write_text(page.read_text("utf-8") + f"\n## edited {run}\n\nfreshword{run} here.\n")


def timed_build(
    config: Config, label: str, profile: bool, cache: SnapshotCache | None = None
) -> float:
    profiler = cProfile.Profile() if profile else None
    started, cpu = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    report = build_index(config, TiktokenCounter(), sync=no_sync, cache=cache)
    if profiler is not None:
        profiler.disable()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    chunks = sum(c.chunks for c in report.collections)
    # CPU seconds beside wall time: on a shared machine the wall clock also counts waiting.
    print(
        f"{label}: {seconds:.2f} s wall, {cpu:.2f} s CPU ({chunks} chunks; engines built "
        f"{report.engines_built}, reused {report.engines_reused}; parts indexed "
        f"{report.parts_built}; chunks tokenized {report.tokenized})"
    )
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    return seconds


def run_index(config: Path) -> tuple[float, float, int]:
    # Imported here: benchmarks.cold_search imports this module for its corpus.
    from benchmarks.cold_search import docbot, run_child

    return run_child(docbot("index", "--config", str(config)))


def timed_command(config: Path, label: str) -> None:
    wall, cpu, rss = run_index(config)
    print(f"{label}: `docbot index` {wall:.2f} s wall, {cpu:.2f} s CPU, {rss / 1024:.0f} MB RSS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/docbot-incremental"))
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--runs", type=int, default=2, help="edits per collection")
    parser.add_argument("--in-process", action="store_true", help="as docbot serve rebuilds")
    parser.add_argument("--cli", action="store_true", help="each rebuild a docbot index process")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    path = make_corpus(args.work, args.files)
    if args.cli:
        run_index(path)  # unmeasured: compiles the bytecode
        stamp = int(time.time())
        for collection in ("pub", "team-a"):
            for run in range(args.runs):
                edit(args.work, collection, stamp + run)
                timed_command(path, f"one file of {collection} edited")
        return
    config = load_config(path)
    cache = SnapshotCache() if args.in_process else None
    timed_build(config, "build (from the previous state, or nothing)", False, cache)
    stamp = int(time.time())
    for collection in ("pub", "team-a"):
        for run in range(args.runs):
            edit(args.work, collection, stamp + run)
            label = f"one file of {collection} edited"
            timed_build(config, label, args.profile and run == 0, cache)
    started = time.perf_counter()
    index = Index.load(config)
    loaded = time.perf_counter() - started
    scope = resolve_scope(config, "T1", "CA", ConversationKind.CHANNEL)
    hits = index.search(f"freshword{stamp} here", scope, 5)
    print(f"load: {loaded:.2f} s; edited text found in team-a: {bool(hits)}")
    print(f"peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
