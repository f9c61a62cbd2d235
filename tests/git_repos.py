"""Real git repositories for tests: a working repository that commits and pushes to a bare
remote on disk, reached by a file:// URL as docbot would reach any remote."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

GIT = shutil.which("git")
# .ci/run installs git when it is missing; elsewhere these tests say why they did not run.
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed (apt-get install git)")


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    if date is not None:
        env |= {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout.strip()


class Remote:
    """`work/` commits, `remote.git` is the bare repository docbot clones from."""

    def __init__(self, root: Path, branch: str = "main") -> None:
        self.bare = root / "remote.git"
        self.work = root / "work"
        self.bare.mkdir(parents=True)
        self.work.mkdir()
        git(self.bare, "init", "--quiet", "--bare", f"--initial-branch={branch}")
        # Lets a clone be blobless (--filter=blob:none), as hosted git servers do.
        git(self.bare, "config", "uploadpack.allowFilter", "true")
        git(self.work, "init", "--quiet", f"--initial-branch={branch}")
        git(self.work, "remote", "add", "origin", str(self.bare))
        self._moved = root / "moved.git"

    @property
    def url(self) -> str:
        return self.bare.as_uri()

    def commit(
        self, files: dict[str, str | None], message: str, date: str = "2026-01-05T10:00:00Z"
    ) -> str:
        """Write (text) or delete (None) each file, commit, return the commit's id. `date`
        is ISO 8601; a bare day means noon UTC."""
        date = date if "T" in date else f"{date}T12:00:00Z"
        for rel, text in files.items():
            path = self.work / rel
            if text is None:
                git(self.work, "rm", "--quiet", rel)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            git(self.work, "add", rel)
        git(self.work, "commit", "--quiet", "-m", message, date=date)
        return git(self.work, "rev-parse", "HEAD")

    def push(self, branch: str = "main", force: bool = False) -> None:
        git(self.work, "push", "--quiet", *(["--force"] if force else []), "origin", branch)

    def checkout(self, branch: str, new: bool = False) -> None:
        git(self.work, "checkout", "--quiet", *(["-b"] if new else []), branch)

    def rewrite_last(self, files: dict[str, str | None], message: str) -> str:
        """Drop the last commit and commit something else instead (then force-push it)."""
        git(self.work, "reset", "--quiet", "--hard", "HEAD~1")
        return self.commit(files, message, date="2026-03-01T10:00:00Z")

    def go_away(self) -> None:
        """The remote cannot be reached any more (a server down, a repository moved)."""
        self.bare.rename(self._moved)

    def come_back(self) -> None:
        self._moved.rename(self.bare)
