"""When each file of a collection last changed: its last commit in a git checkout, else its
modification time."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from retrieval.git_source import git_environment

# Every commit touching the folder, newest first, as "\x01<unix time>" then its file names.
_GIT_LOG = ("log", "-z", "--format=%x01%ct", "--name-only", "--relative", "--no-renames", "--", ".")
_MTIME_NOTE = "dates are file modification times, not commit dates"
# git's words (under LC_ALL=C) for folders that simply have no history to date files by.
_NO_HISTORY = ("not a git repository", "does not have any commits yet")


class FileDates(NamedTuple):
    dates: dict[str, str]  # path -> ISO date of its last change
    note: str  # why git's dates were not used, when git should have had them; else ""


def file_dates(
    root: Path, rel_paths: Sequence[str], git: str = "git", timeout: float = 120.0
) -> FileDates:
    """ISO date of each file's last change: its last commit in a git checkout, else its mtime.

    One `git log` for the whole folder; anything git cannot tell falls back to the mtime. When
    git fails for another reason than "not a checkout" (e.g. a repository owned by another user),
    the fallback still happens and `note` says why.
    """
    dates, note = _git_dates(root, frozenset(rel_paths), git, timeout)
    return FileDates({rel: dates.get(rel) or _mtime_date(root / rel) for rel in rel_paths}, note)


def _git_dates(
    root: Path, wanted: frozenset[str], git: str, timeout: float
) -> tuple[dict[str, str], str]:
    if not wanted:
        return {}, ""
    command = [git, "-c", "core.quotePath=false", "-C", str(root), *_GIT_LOG]
    # git_environment's LC_ALL=C: git's messages in English, so "not a checkout" is recognised
    # in any locale. A date lookup takes no optional locks a concurrent git may want.
    env = git_environment() | {"GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(command, capture_output=True, timeout=timeout, check=False, env=env)
    except subprocess.TimeoutExpired:
        return {}, f"{_MTIME_NOTE}: git log took over {timeout:g} s"
    except OSError as exc:
        in_checkout = any((folder / ".git").exists() for folder in (root, *root.parents))
        return {}, (f"{_MTIME_NOTE}: cannot run git ({exc.strerror or exc})" if in_checkout else "")
    if done.returncode != 0:
        return {}, _git_failure_note(root, done.stderr.decode("utf-8", "replace"))
    return parse_git_log(done.stdout.decode("utf-8", "replace"), wanted), ""


def _git_failure_note(root: Path, stderr: str) -> str:
    if any(benign in stderr for benign in _NO_HISTORY):
        return ""
    first = next((line.strip() for line in stderr.splitlines() if line.strip()), "no message")
    return f"{_MTIME_NOTE}: git log failed: {first}; run `git -C {root} log -1` to see why"


def parse_git_log(output: str, wanted: frozenset[str]) -> dict[str, str]:
    """Newest commit first, so the first date seen for a path is its last change."""
    dates: dict[str, str] = {}
    current = ""
    for field in output.split("\0"):
        field = field.removeprefix("\n")
        if field.startswith("\x01"):
            current = _utc_date(int(field[1:])) if field[1:].isdigit() else ""
        elif field in wanted and field not in dates and current:
            dates[field] = current
    return dates


def _mtime_date(path: Path) -> str:
    try:
        return _utc_date(path.stat().st_mtime_ns // 1_000_000_000)
    except OSError:
        return ""


def _utc_date(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).date().isoformat()
