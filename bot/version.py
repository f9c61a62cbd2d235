"""What `docbot --version` prints, for a bug report: the package version, the commit when docbot
runs from a git checkout of its source, the Python it runs on, and the index format it reads and
writes (an index of another format is refused until `docbot index` rebuilds it)."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

# The folder holding bot/, grounding/ and retrieval/: a clone's root when installed with -e.
SOURCE_ROOT = Path(__file__).resolve().parent.parent
GIT_SECONDS = 5.0


def version_text(source_root: Path = SOURCE_ROOT) -> str:
    """The lines `docbot --version` prints."""
    from retrieval.engine_meta import ENGINE_FORMAT
    from retrieval.engines import SCORING_VERSION
    from retrieval.manifest import FORMAT, TOKENIZER_VERSION

    lines = [f"docbot {package_version()}"]
    commit = source_commit(source_root)
    if commit is not None:
        lines.append(f"commit {commit} (source {source_root})")
    lines.append(f"python {platform.python_version()} on {platform.system()} {platform.machine()}")
    lines.append(
        f"index format {FORMAT} (tokenizer {TOKENIZER_VERSION}, scoring {SCORING_VERSION}, "
        f"engine {ENGINE_FORMAT})"
    )
    return "\n".join(lines)


def version_line(source_root: Path = SOURCE_ROOT) -> str:
    """One line of it, for the log `docbot serve` starts with."""
    from retrieval.manifest import FORMAT

    commit = source_commit(source_root)
    at = f", commit {commit}" if commit is not None else ""
    return f"docbot {package_version()}{at}, index format {FORMAT}"


def package_version() -> str:
    try:
        return metadata.version("docbot")
    except metadata.PackageNotFoundError:
        return "(not installed: run from a source folder without `pip install`)"


def source_commit(source_root: Path) -> str | None:
    """The checkout's commit, `+ uncommitted changes` when files differ from it; None when
    docbot was installed from a wheel (no checkout) or git cannot say."""
    if not (source_root / ".git").exists() or not (source_root / "pyproject.toml").is_file():
        return None
    head = _git(source_root, "rev-parse", "--short=12", "HEAD")
    if not head:
        return None
    changed = _git(source_root, "status", "--porcelain", "--untracked-files=no")
    return f"{head} + uncommitted changes" if changed else head


def _git(cwd: Path, *args: str) -> str:
    """git's stdout, stripped; "" when git is missing, fails or hangs (a version never fails)."""
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            timeout=GIT_SECONDS,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
