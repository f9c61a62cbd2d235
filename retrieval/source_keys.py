"""The keys that say where a collection's documents come from: `path:` (a local folder),
`git:` (+ `branch`, `subdir`) or `site:` (a documentation website). Checked when docbot.yml
loads; retrieval/config.py calls these.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from urllib.parse import urlsplit

# Exactly one of these names a collection's source.
SOURCE_KEYS = ("path", "git", "site")
# Keys that only mean something for one kind of source.
GIT_ONLY_KEYS = ("branch", "subdir")
# `user@host:path/repo.git`, git's scp-like ssh syntax.
_SCP_LIKE = re.compile(r"^(?:[A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+:(?!//)[^\s]+$")
_GIT_SCHEMES = ("https", "http", "ssh", "git", "file")
_CREDENTIALS_FIX = (
    "credentials never go in docbot.yml: remove them from the URL and give them to git "
    "through the environment or git's own credential helpers (e.g. `git config --global "
    "credential.helper store`, an ssh key, or GIT_ASKPASS); see docs/configuration.md#git-sources"
)
SITE_PAGES = "pages"  # a site's snapshot folder inside site_home(), as Markdown files
_BRANCH = re.compile(r"^(?!-)(?!.*\.\.)(?!.*//)[A-Za-z0-9._/-]+(?<![./])$")


def source_problem(name: str, given: Mapping[str, object]) -> str | None:
    """Why the collection's source keys are not exactly one source, or None."""
    sources = [key for key in SOURCE_KEYS if given.get(key) is not None]
    if len(sources) > 1:
        return (
            f"collection {name!r} names both {' and '.join(f'`{k}`' for k in sources)}: a "
            "collection reads one source; keep one, or split it into two collections"
        )
    if not sources:
        return (
            f"collection {name!r} names no source: add `path: <folder>` (a local folder, "
            "relative to this file), `git: <repository URL>` or `site: <docs website URL>`"
        )
    if sources[0] != "git":
        extra = [key for key in GIT_ONLY_KEYS if given.get(key) is not None]
        if extra:
            return (
                f"collection {name!r} has `{extra[0]}`, which only applies to a `git:` source: "
                f"remove it, or replace `{sources[0]}:` with `git: <repository URL>`"
            )
    return None


def check_git_url(url: str) -> str:
    """`url` when git can fetch it without credentials written in it, else ValueError."""
    url = url.strip()
    if not url or url.startswith("-"):
        raise ValueError(
            f"git {url!r} is not a repository URL: write e.g. "
            "https://git.example.com/team/docs.git, ssh://git@host/team/docs.git or "
            "file:///srv/git/docs.git"
        )
    if "://" not in url:
        if _SCP_LIKE.match(url):
            # `user:password@host:path` also reads as host `user`, path `password@host:path`.
            if "@" in url.split(":", 1)[1].split("/", 1)[0]:
                raise ValueError(f"git URL has credentials in it: {_CREDENTIALS_FIX}")
            return url
        raise ValueError(
            f"git {url!r} is not a repository URL: write a URL such as "
            "https://git.example.com/team/docs.git or, for a repository on this machine, "
            f"file://{Path(url).expanduser().resolve()}"
        )
    parts = urlsplit(url)
    if parts.scheme not in _GIT_SCHEMES:
        raise ValueError(
            f"git {url!r}: the scheme {parts.scheme!r} is not supported: use one of "
            f"{', '.join(s + '://' for s in _GIT_SCHEMES)}"
        )
    has_password = parts.password is not None
    # Over HTTP a user name alone is usually a token (https://TOKEN@host/...): refused too.
    token_as_user = parts.scheme in ("https", "http") and parts.username is not None
    if has_password or token_as_user:
        shown = parts._replace(netloc=parts.hostname or "", query="", fragment="").geturl()
        raise ValueError(f"git URL has credentials in it (write {shown!r}): {_CREDENTIALS_FIX}")
    if parts.query or parts.fragment:
        # git repositories need neither; a query is where a URL carries a token.
        shown = parts._replace(query="", fragment="").geturl()
        raise ValueError(
            f"git URL has a query string or fragment (write {shown!r}); if it carried a "
            f"token, {_CREDENTIALS_FIX}"
        )
    if parts.scheme != "file" and not parts.hostname:
        raise ValueError(f"git {url!r} names no host: write e.g. https://host/team/docs.git")
    return url


def check_branch(branch: str) -> str:
    if not _BRANCH.match(branch):
        raise ValueError(
            f"branch {branch!r} is not a branch name: write it as git shows it, e.g. main or "
            "release/2.0 (no leading '-', no '..', no spaces)"
        )
    return branch


def check_subdir(subdir: str) -> str:
    """A relative folder inside the repository, as a clean posix path."""
    candidate = PurePosixPath(subdir.replace("\\", "/"))
    if candidate.is_absolute() or subdir.startswith("~"):
        raise ValueError(
            f"subdir {subdir!r} must be a folder inside the repository, relative to its root "
            "(e.g. subdir: docs), not an absolute path"
        )
    if ".." in candidate.parts:
        raise ValueError(
            f"subdir {subdir!r} leaves the repository ('..'): name a folder inside it, "
            "relative to its root, e.g. subdir: docs"
        )
    clean = candidate.as_posix()
    if clean in ("", "."):
        raise ValueError("subdir is empty: name a folder such as `docs`, or drop the key")
    if any(part.startswith(".") for part in candidate.parts):
        raise ValueError(
            f"subdir {subdir!r} is a hidden folder, which docbot never reads (like .git): "
            "name a visible folder"
        )
    return clean


def git_checkout(state_dir: Path, url: str, branch: str | None) -> Path:
    """Where a repository's clone lives: one folder per URL and branch. Collections reading the
    same repository share it, so they index one commit, and a file two of them hold is the same
    file on disk, which the access check (retrieval/scopes.py) compares."""
    key = hashlib.sha256(f"{url}\0{branch or ''}".encode()).hexdigest()[:16]
    return state_dir / "sources" / f"git-{key}"


def check_site_url(url: str) -> str:
    """`url` when it is an http(s) start page without credentials, a query or a fragment."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ValueError(
            f"site {url!r} is not a website URL: write the docs' start page, e.g. "
            "https://docs.example.com/ (its sitemap.xml is read, or its links followed)"
        )
    if parts.username is not None or parts.password is not None:
        shown = parts._replace(netloc=parts.hostname, query="", fragment="").geturl()
        raise ValueError(
            f"site URL has credentials in it (write {shown!r}): docbot reads public "
            "documentation sites; a private one needs a `git:` source or a local folder"
        )
    if parts.query or parts.fragment:
        shown = parts._replace(query="", fragment="").geturl()
        raise ValueError(f"site URL has a query string or fragment: write {shown!r}")
    return parts._replace(path=parts.path or "/").geturl()


def site_home(state_dir: Path, url: str) -> Path:
    """Where a site's snapshot lives: one folder per start URL."""
    key = hashlib.sha256(url.encode()).hexdigest()[:16]
    return state_dir / "sources" / f"site-{key}"
