"""What a `git:` collection costs `docbot index`: clone, a sync with nothing new, a sync after
a one-file commit, and the whole index run around each (dense search off, so the numbers are
git's and the scan's, not the embedder's).

Usage: python benchmarks/git_sync.py [corpus]   (default: django-docs, about 7 MB, 600 files)

The corpus is committed in ten commits to a work repository in a temporary folder and pushed to
a bare remote with blobless clones allowed, reached by a file:// URL as any remote would be (so
no network time is in these numbers: add your link's round trips to each fetch).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from retrieval.build import build_index
from retrieval.config import Config, load_config
from retrieval.sources import SyncOutcome, sync_sources

SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("corpus", nargs="?", default="django-docs")
    args = parser.parse_args()
    corpus = (SHARED / args.corpus).resolve()
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is absent")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        work, bare = _repository(corpus, root)
        config = _config(root, bare)
        files = sum(1 for p in work.rglob("*") if p.is_file() and ".git" not in p.parts)
        print(f"{args.corpus}: {files} files, {_mb(work, skip='.git'):.1f} MB, 10 commits")
        _row("clone (first sync)", lambda: sync_sources(config))
        print(f"  clone on disk: {_mb(config.collection('c').folder):.1f} MB (blobless)")
        _row("sync, nothing new", lambda: sync_sources(config))
        first = sorted(p for p in work.rglob("*.txt") if ".git" not in p.parts)[0]
        first.write_text(first.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
        _git(work, "commit", "-qam", "one file")
        _git(work, "push", "-q", "origin", "main")
        _row("sync, one-file commit", lambda: sync_sources(config))
        _row("docbot index, first (sync + scan)", lambda: build_index(config).synced)
        first.write_text(first.read_text(encoding="utf-8") + "\nAnd another.\n", "utf-8")
        _git(work, "commit", "-qam", "another")
        _git(work, "push", "-q", "origin", "main")
        _row("docbot index, one-file commit", lambda: build_index(config).synced)
        _row("docbot index, nothing new", lambda: build_index(config).synced)


def _repository(corpus: Path, root: Path) -> tuple[Path, Path]:
    work, bare = root / "work", root / "remote.git"
    shutil.copytree(corpus, work)
    bare.mkdir()
    _git(bare, "init", "-q", "--bare", "--initial-branch=main")
    _git(bare, "config", "uploadpack.allowFilter", "true")
    _git(work, "init", "-q", "--initial-branch=main")
    _git(work, "remote", "add", "origin", str(bare))
    paths = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    for batch in range(10):
        _git(work, "add", "--", *paths[batch::10])
        _git(work, "commit", "-qm", f"batch {batch}", date=f"2026-0{1 + batch % 9}-01T12:00:00Z")
    _git(work, "push", "-q", "origin", "main")
    return work, bare


def _config(root: Path, bare: Path) -> Config:
    path = root / "docbot.yml"
    path.write_text(
        "teams: [T1]\nretrieval: {dense: false}\ncollections:\n"
        f"  - name: c\n    git: {bare.as_uri()}\n",
        encoding="utf-8",
    )
    return load_config(path)


def _row(label: str, run: Callable[[], tuple[SyncOutcome, ...]]) -> None:
    started = time.perf_counter()
    (outcome,) = run()
    seconds = time.perf_counter() - started
    assert outcome.ok, outcome.error
    print(f"  {label:<36} {seconds:6.2f} s  at {outcome.revision[:12]}")


def _git(cwd: Path, *args: str, date: str | None = None) -> None:
    env = {
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    if date:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _mb(folder: Path, skip: str = "") -> float:
    total = sum(
        p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file() and not (skip and skip in p.relative_to(folder).parts)
    )
    return total / 1e6


if __name__ == "__main__":
    main()
