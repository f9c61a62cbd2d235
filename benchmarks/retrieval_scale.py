"""Retrieval at 100,000 chunks: build, load, query latency, peak memory and recall, per engine.

The corpus: the Python 3.11 docs, the PEPs and the Django docs from ../shared/corpora, chunked
by docbot's own chunker, plus the 2,067 SQuAD v1.1 dev paragraphs (one chunk each, as in
retrieval_quality.py), capped at exactly 100,000 chunks by dropping PEP chunks from the end.
Those corpora hold ~40k chunks at the default 350-token chunks, so chunks are smaller here
(--chunk-tokens, default 80): the index has 100k documents over the same ~31 MB of text.

Two scopes: "all" (channel CALL: every collection, 100k chunks) and "public" (squad plus the
Django `ref/` pages, ~11%). Each variant (tantivy with dense vectors, as `docbot index` builds
by default; tantivy and rank-bm25 with `retrieval.dense: false`) is built, then loaded and
queried, in its own subprocess so peak RSS is its own; the build embeds every chunk (nothing
cached). rank-bm25's BM25Okapi.get_scores runs on the same 100k token lists with a smaller
query sample (it scores every document in Python per query term).

    python benchmarks/retrieval_scale.py [--queries 2000] [--okapi-queries 200]
        [--variants tantivy-dense,tantivy,bm25]
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import pickle
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.collections import (
    CollectionSnapshot,
    FileRecord,
    chunking_key,
    scan_collection,
    selection_key,
)
from retrieval.config import load_config
from retrieval.index import Index, index_text, set_chunks, write_index
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.text import tokenize
from retrieval.tokens import TiktokenCounter

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO / ".." / "shared"
CORPORA = SHARED / "corpora"
SQUAD = SHARED / "eval" / "squad" / "dev-v1.1.json"
TOTAL = 100_000
COLLECTIONS: list[dict[str, Any]] = [
    {"name": "squad", "path": "squad"},
    {"name": "django-ref", "path": str(CORPORA / "django-docs"), "include": ["ref/**/*.txt"]},
    {
        "name": "django-rest",
        "path": str(CORPORA / "django-docs"),
        "include": ["**/*.txt"],
        "exclude": ["ref/**"],
    },
    {"name": "python-docs", "path": str(CORPORA / "python-docs-3.11")},
    {"name": "peps", "path": str(CORPORA / "peps")},
]
PRIVATE = {"django-rest", "python-docs", "peps"}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def squad_questions() -> list[tuple[str, str]]:
    """(question, path of its paragraph's file in the squad collection)."""
    data = json.loads(SQUAD.read_text(encoding="utf-8"))
    out: list[tuple[str, str]] = []
    n = 0
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            out.extend((qa["question"], f"p{n:05d}.txt") for qa in paragraph["qas"])
            n += 1
    return out


VARIANTS = {
    "tantivy-dense": ("tantivy", True),
    "tantivy": ("tantivy", False),
    "bm25": ("bm25", False),
}


def write_config(work: Path, variant: str, chunk_tokens: int) -> Path:
    engine, dense = VARIANTS[variant]
    collections = []
    for entry in COLLECTIONS:
        entry = dict(entry)
        if entry["name"] in PRIVATE:
            entry |= {"access": "private", "channels": ["CALL"]}
        collections.append(entry)
    raw = {
        "state_dir": f"state-{variant}",
        "teams": ["T1"],
        "collections": collections,
        "search": {"engine": engine, "chunk_tokens": chunk_tokens},
        "retrieval": {"dense": dense},
    }
    path = work / f"docbot-{variant}.yml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


def squad_snapshot(work: Path, key: str, selection: str) -> CollectionSnapshot:
    """One file and one chunk per SQuAD paragraph: the unit its questions are asked about."""
    data = json.loads(SQUAD.read_text(encoding="utf-8"))
    folder = work / "squad"
    folder.mkdir(exist_ok=True)
    records = []
    contexts = [p["context"] for a in data["data"] for p in a["paragraphs"]]
    for n, context in enumerate(contexts):
        path = f"p{n:05d}.txt"
        raw = context.encode("utf-8")
        (folder / path).write_bytes(raw)
        digest = text_digest(context)
        chunk = Chunk(
            make_chunk_id("squad", path, digest, 0), "squad", path, (), 1, 1, context, digest, ""
        )
        sha = hashlib.sha256(raw).hexdigest()
        records.append(FileRecord(path, len(raw), 0, sha, "", "", (chunk,)))
    return CollectionSnapshot("squad", tuple(records), (), key, selection)


def cap(snapshot: CollectionSnapshot, keep: int) -> CollectionSnapshot:
    """The first `keep` chunks of the collection, in file order (the last file cut short)."""
    files, left = [], keep
    for record in snapshot.files:
        if left <= 0:
            break
        files.append(dataclasses.replace(record, chunks=record.chunks[:left]))
        left -= len(files[-1].chunks)
    return dataclasses.replace(snapshot, files=tuple(files))


def prepare(work: Path, chunk_tokens: int) -> dict[str, float]:
    (work / "squad").mkdir(exist_ok=True)  # the config names it; load_config checks folders
    config = load_config(write_config(work, "tantivy", chunk_tokens))
    key = chunking_key(config.search)
    counter = TiktokenCounter()
    started = time.perf_counter()
    selection = selection_key(config.collection("squad"))
    snapshots = {"squad": squad_snapshot(work, key, selection)}
    for collection in config.collections[1:]:
        snapshots[collection.name], _ = scan_collection(collection, config.search, counter, None)
    scan_s = time.perf_counter() - started
    total = sum(s.chunk_count for s in snapshots.values())
    if total < TOTAL:
        sys.exit(f"only {total} chunks at --chunk-tokens {chunk_tokens}: use a smaller value")
    peps = snapshots["peps"]
    snapshots["peps"] = cap(peps, peps.chunk_count - (total - TOTAL))
    with (work / "snapshots.pickle").open("wb") as handle:
        pickle.dump(snapshots, handle, protocol=pickle.HIGHEST_PROTOCOL)
    counts = {name: float(s.chunk_count) for name, s in snapshots.items()}
    return {"scan_and_chunk_s": scan_s, "chunks_before_cap": float(total), **counts}


def child_build(work: Path, engine: str) -> dict[str, Any]:
    config = load_config(work / f"docbot-{engine}.yml")
    with (work / "snapshots.pickle").open("rb") as handle:
        snapshots = pickle.load(handle)
    started = time.perf_counter()
    written = write_index(config, snapshots)
    return {
        "build_s": time.perf_counter() - started,
        "engines": written.built,
        "embedded": written.embedded,
        "build_rss_mb": peak_rss_mb(),
    }


def child_query(work: Path, engine: str, n_queries: int) -> dict[str, Any]:
    config = load_config(work / f"docbot-{engine}.yml")
    started = time.perf_counter()
    index = Index.load(config)
    result: dict[str, Any] = {"load_s": time.perf_counter() - started}
    questions = random.Random(0).sample(squad_questions(), n_queries)
    for label, channel in (("all", "CALL"), ("public", "CPUB")):
        scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
        for question, _ in questions[:20]:
            index.search(question, scope, 10)  # warm the page cache and the memo
        latencies, found, first = [], 0, 0
        for question, gold in questions:
            t = time.perf_counter()
            hits = index.search(question, scope, 10)
            latencies.append(1000 * (time.perf_counter() - t))
            ranks = [h.chunk.collection == "squad" and h.chunk.path == gold for h in hits[:5]]
            found += any(ranks)
            first += bool(ranks and ranks[0])
        result[label] = _latency(latencies) | {
            "recall_1": first / len(questions),
            "recall_5": found / len(questions),
            "chunks": sum(index.collections()[n][1] for n in scope.collections),
            "engine": index.engine_name(scope),
        }
    result["query_rss_mb"] = peak_rss_mb()
    return result


def child_okapi(work: Path, n_queries: int) -> dict[str, Any]:
    from rank_bm25 import BM25Okapi

    with (work / "snapshots.pickle").open("rb") as handle:
        snapshots = pickle.load(handle)
    chunks = set_chunks(snapshots, list(snapshots))
    started = time.perf_counter()
    bm25 = BM25Okapi([tokenize(index_text(c)) for c in chunks])
    result: dict[str, Any] = {"build_s": time.perf_counter() - started}
    questions = random.Random(0).sample(squad_questions(), n_queries)
    latencies, found = [], 0
    for question, gold in questions:
        t = time.perf_counter()
        scores = bm25.get_scores(tokenize(question))
        top = np.argsort(-scores, kind="stable")[:5]
        latencies.append(1000 * (time.perf_counter() - t))
        found += any(chunks[i].collection == "squad" and chunks[i].path == gold for i in top)
    result["all"] = _latency(latencies) | {"recall_5": found / len(questions)}
    result["rss_mb"] = peak_rss_mb()
    return result


def _latency(ms: Sequence[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[int(0.95 * (len(ordered) - 1))],
        "queries": float(len(ordered)),
    }


def run_child(*args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        sys.exit(f"child {args} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def report(prepared: dict[str, float], runs: dict[str, dict[str, Any]]) -> None:
    counts = {k: int(v) for k, v in prepared.items() if not k.endswith("_s") and "before" not in k}
    print(
        f"chunks: {sum(counts.values())} ({counts}); "
        f"scan+chunk of the corpora {prepared['scan_and_chunk_s']:.1f} s"
    )
    for variant in [v for v in VARIANTS if f"{v}-build" in runs]:
        build, query = runs[f"{variant}-build"], runs[f"{variant}-query"]
        print(
            f"\n[{variant}] build {build['build_s']:.1f} s ({build['engines']} engines, "
            f"{build['embedded']} chunks embedded), "
            f"peak RSS {build['build_rss_mb']:.0f} MB; load {query['load_s']:.2f} s, "
            f"query process peak RSS {query['query_rss_mb']:.0f} MB"
        )
        for scope in ("all", "public"):
            s = query[scope]
            print(
                f"  scope {scope:<6} {s['chunks']:>6} chunks ({s['engine']}): "
                f"p50 {s['p50_ms']:.2f} ms, p95 {s['p95_ms']:.2f} ms, "
                f"recall@1 {s['recall_1']:.3f}, recall@5 {s['recall_5']:.3f} "
                f"over {int(s['queries'])} questions"
            )
    if "okapi" not in runs:
        return
    okapi = runs["okapi"]["all"]
    print(
        f"\n[rank-bm25 BM25Okapi.get_scores] build {runs['okapi']['build_s']:.1f} s, "
        f"peak RSS {runs['okapi']['rss_mb']:.0f} MB; scope all: p50 {okapi['p50_ms']:.1f} ms, "
        f"p95 {okapi['p95_ms']:.1f} ms, recall@5 {okapi['recall_5']:.3f} "
        f"over {int(okapi['queries'])} questions (smaller sample: it is slow)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--okapi-queries", type=int, default=200)
    parser.add_argument("--chunk-tokens", type=int, default=80)
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--work", type=Path, help="working folder (default: a temporary one)")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, work, *rest = args.child
        work = Path(work)
        if kind == "build":
            print(json.dumps(child_build(work, rest[0])))
        elif kind == "query":
            print(json.dumps(child_query(work, rest[0], int(rest[1]))))
        else:
            print(json.dumps(child_okapi(work, int(rest[0]))))
        return
    if not SQUAD.exists() or not CORPORA.exists():
        sys.exit(f"{SHARED} is absent: this benchmark needs ../shared beside the repository")
    with tempfile.TemporaryDirectory(prefix="docbot-scale-") as temporary:
        work = args.work or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        prepared = prepare(work, args.chunk_tokens)
        runs: dict[str, dict[str, Any]] = {}
        for variant in args.variants.split(","):
            write_config(work, variant, args.chunk_tokens)
            runs[f"{variant}-build"] = run_child("build", str(work), variant)
            runs[f"{variant}-query"] = run_child("query", str(work), variant, str(args.queries))
        if args.okapi_queries:
            runs["okapi"] = run_child("okapi", str(work), str(args.okapi_queries))
        report(prepared, runs)


if __name__ == "__main__":
    main()
