"""What a cold `docbot search` costs at ~100k chunks, and the peak memory of a full `docbot index`.

Uses the synthetic corpus of benchmarks/incremental_index.py (seeded pseudo-words; `pub`
public, `team-a` and `team-b` private to channels CA and CB), written once under --work, with
dense vectors on (the default) and, for comparison, BM25 alone. Each search is a fresh
`python -m bot.cli search ... --channel CA` process, timed from before it starts until it has
printed its hits and exited (best and median of --runs); its CPU time comes from the child's
rusage. `--rss-files` also builds a corpus of that many files (1,800 = ~300k chunks) from
nothing in a child `docbot index` and prints that child's peak RSS (ru_maxrss).

    python -m benchmarks.cold_search [--work DIR] [--files 600] [--runs 5] [--rss-files 1800]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from benchmarks.incremental_index import make_corpus


def configs(work: Path, files: int) -> dict[str, Path]:
    """The corpus (written once) and two configs over it: dense on, and BM25 alone."""
    raw = yaml.safe_load(make_corpus(work, files).read_text("utf-8"))
    found = {}
    for label, dense in (("dense", True), ("bm25", False)):
        config = dict(raw, state_dir=str(work / f"state-{label}"), retrieval={"dense": dense})
        path = work / f"docbot-{label}.yml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        found[label] = path
    return found


def run_child(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, peak RSS in KB) of one child process, which must succeed.

    The child may write bytecode (__pycache__) even where PYTHONDONTWRITEBYTECODE is set, as
    in this project's sandboxes: an installed docbot has its modules compiled, and compiling
    them again in every run was ~0.25 s of a measured "cold" search."""
    started = time.perf_counter()
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    # stderr goes to a file, not a pipe: wait4 (for the child's rusage) does not drain a pipe,
    # so a child writing more than the pipe holds would block forever.
    with tempfile.TemporaryFile() as errors:
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({child.returncode}): {stderr}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def docbot(*args: str) -> list[str]:
    return [sys.executable, "-m", "bot.cli", *args]


def a_query(work: Path) -> str:
    """Words of a heading in team-a, so the search has hits to print."""
    page = (work / "corpus" / "team-a" / "page-00003.md").read_text("utf-8")
    heading = next(line for line in page.splitlines() if line.startswith("## "))
    return " ".join(heading.split()[1:4])


def cold_search(config: Path, query: str, runs: int) -> None:
    if not (Path(yaml.safe_load(config.read_text("utf-8"))["state_dir"]) / "index").exists():
        wall, _, rss = run_child(docbot("index", "--config", str(config)))
        print(f"  (indexed in {wall:.1f} s, peak RSS {rss / 1024:.0f} MB)")
    search = docbot("search", query, "--channel", "CA", "--config", str(config), "--k", "5")
    run_child(search)  # once unmeasured: the files are then in the page cache, as for a user
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu, _ = run_child(search)
        walls.append(wall)
        cpus.append(cpu)
    print(
        f"  {config.stem}: wall best {min(walls):.2f} s, median {statistics.median(walls):.2f} s;"
        f" CPU best {min(cpus):.2f} s ({runs} runs)"
    )


def import_floor(runs: int) -> None:
    """The same interpreter importing the search command's modules, and nothing else."""
    imports = "import bot.cli, retrieval.index, retrieval.embeddings, retrieval.dense"
    run_child([sys.executable, "-c", imports])  # unmeasured: compiles what is not yet
    walls = [run_child([sys.executable, "-c", imports])[0] for _ in range(runs)]
    print(f"  imports alone: wall best {min(walls):.2f} s")


def peak_rss(work: Path, files: int) -> None:
    config = configs(work, files)["dense"]
    shutil.rmtree(work / "state-dense", ignore_errors=True)
    wall, _, rss = run_child(docbot("index", "--config", str(config)))
    print(
        f"full `docbot index`, {files} files, dense on: {wall:.0f} s, peak RSS {rss / 1024:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/docbot-cold-search"))
    parser.add_argument("--files", type=int, default=600, help="600 files = ~100k chunks")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rss-files", type=int, default=0, help="1800 files = ~300k chunks")
    args = parser.parse_args()
    work = args.work / f"files-{args.files}"
    work.mkdir(parents=True, exist_ok=True)
    found = configs(work, args.files)
    query = a_query(work)
    print(f"cold `docbot search {query!r} --channel CA` ({args.files} files):")
    import_floor(args.runs)
    for config in found.values():
        cold_search(config, query, args.runs)
    if args.rss_files:
        peak_rss(args.work / f"files-{args.rss_files}", args.rss_files)


if __name__ == "__main__":
    main()
