"""A `git:` collection's files: a clone under state_dir, brought to the remote's tip on each sync.

Only the `git` command line is used (a subprocess per step, each with a timeout, never a
prompt). The clone is single-branch and blobless (`--filter=blob:none`): every commit and tree,
but only the file contents of the checked-out revision. That is what keeps documents dated
right: `git log` can still tell each file's last commit, where a `--depth 1` clone would date
every file by the tip. A server that does not offer filters sends a full single-branch clone,
which dates the same. Credentials come from git itself (the environment, credential helpers,
ssh keys); docbot.yml refuses them (retrieval/source_keys.py).

A sync fetches the branch, resets the checkout hard to what was fetched (so a force-push is
followed) and removes anything else in it. When the remote cannot be reached the checkout is
left as the last good sync made it, and the outcome says why and since when.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from retrieval.errors import DocbotError

# One clone or fetch of a large docs repository over a slow link fits; a hung server does not.
GIT_TIMEOUT_SECONDS = 300.0
# Where a sync puts what it fetched before the checkout is reset to it.
FETCHED_REF = "refs/docbot/fetched"
_REPO_VARIABLES = frozenset({"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"})


class GitError(DocbotError):
    """A git command failed; the message is git's own reason, in one line."""


def git_environment() -> dict[str, str]:
    """The caller's environment for git, minus what would point it at another repository, and
    never interactive: git asks no terminal for a password, ssh no askpass window. (git also
    runs without a controlling terminal, see run_git, so ssh cannot prompt either; the user's
    own ssh settings, core.sshCommand included, are left alone.)"""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_VARIABLES}
    env |= {"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GCM_INTERACTIVE": "never"}
    env |= {"SSH_ASKPASS_REQUIRE": "never"}
    return env


def run_git(args: Sequence[str], cwd: Path | None, timeout: float, git: str = "git") -> str:
    """Run `git args...`; its stdout, or GitError with the reason git gave."""
    command = [git, "-c", "core.quotePath=false", *args]
    try:
        # Its own session: no controlling terminal to prompt on, and a process group, so a
        # timeout stops git's helpers too (git-remote-https, ssh), not only git itself.
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=git_environment(),
            start_new_session=True,
        )
    except OSError as exc:
        raise GitError(
            f"cannot run git ({exc.strerror or exc}): install git (e.g. `apt-get install git`)"
        ) from exc
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _stop_group(process)
        raise GitError(f"`git {args[0]}` took over {timeout:g} s and was stopped") from None
    except BaseException:
        _stop_group(process)
        raise
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if done.returncode != 0:
        raise GitError(_reason(done.stderr.decode("utf-8", "replace"), args[0]))
    return done.stdout.decode("utf-8", "replace")


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # already gone
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def _reason(stderr: str, step: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    chosen = (fatal or lines or [f"`git {step}` failed with no message"])[0]
    return chosen.removeprefix("fatal: ").removeprefix("error: ")


def clone(url: str, branch: str | None, repo: Path, timeout: float) -> None:
    """A fresh single-branch, blobless clone at `repo`; whole or absent (cloned beside, then
    renamed), so an interrupted clone never looks like a checkout."""
    temporary = repo.with_name(f"{repo.name}.tmp-{os.getpid()}")
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.parent.mkdir(parents=True, exist_ok=True)
    chosen = ["--branch", branch] if branch else []
    args = ["clone", "--quiet", "--filter=blob:none", "--single-branch", "--no-tags", *chosen]
    try:
        run_git([*args, "--", url, str(temporary)], None, timeout)
    except GitError:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    shutil.rmtree(repo, ignore_errors=True)
    os.rename(temporary, repo)


def fetch_and_reset(repo: Path, branch: str | None, timeout: float) -> None:
    """Bring the checkout to the remote's tip of `branch` (default: the remote's HEAD), even
    when the remote's history was rewritten; files deleted there are deleted here."""
    source = f"refs/heads/{branch}" if branch else "HEAD"
    run_git(["fetch", "--quiet", "--no-tags", "origin", f"+{source}:{FETCHED_REF}"], repo, timeout)
    run_git(["reset", "--quiet", "--hard", FETCHED_REF], repo, timeout)
    run_git(["clean", "-ffdxq"], repo, timeout)


def head_commit(repo: Path, timeout: float) -> str:
    """The checkout's commit, or "" when `repo` is no usable clone."""
    if not (repo / ".git").exists():
        return ""
    try:
        return run_git(["rev-parse", "--verify", "HEAD^{commit}"], repo, timeout).strip()
    except GitError:
        return ""
