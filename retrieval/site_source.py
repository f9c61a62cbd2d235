"""A `site:` collection's snapshot on disk: the pages of the last good crawl as Markdown files,
and `site.json`, which maps each file back to its page URL and heading anchors (for links).

    state_dir/sources/site-<key>/pages/<path>.md   what `docbot index` reads
    state_dir/sources/site-<key>/site.json          file -> url, validators, anchors, links
    state_dir/sources/site-<key>/sync.json          when the last sync worked, or since when not

A sync writes the new snapshot beside the old one and swaps it in, so a crawl that fails
half-way leaves the last good pages in place. A page gone from the site (404/410, or no longer
in its sitemap) is gone from the snapshot; one that failed this time (5xx, no answer) keeps its
last good copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from retrieval.durable import write_atomically
from retrieval.site_crawl import Crawl, Known, SiteError, crawl
from retrieval.source_keys import SITE_PAGES

PAGE_MAP = "site.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, slots=True)
class StoredPage:
    url: str
    etag: str
    last_modified: str
    anchors: tuple[tuple[int, str], ...]
    digest: str  # sha256 of the stored text
    links: tuple[str, ...] | None = None  # the page's links; None in a snapshot from before


@dataclass(frozen=True, slots=True)
class SiteSync:
    revision: str  # a digest of the snapshot's pages; "" when there is none
    previous: str
    notes: tuple[str, ...]  # pages skipped or kept, for the index report


def sync_site(
    home: Path,
    start: str,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    timeout: float,
    *,
    fetch: Callable[..., Crawl] = crawl,
) -> SiteSync:
    """Crawl `start` and make `home/pages` the new snapshot. SiteError (the old snapshot kept)
    when the site cannot be read."""
    stored = read_page_map(home)
    previous = snapshot_revision(stored)  # "" when there is no snapshot yet
    by_url = {page.url: (path, page) for path, page in stored.items()}
    known = {
        url: Known(page.etag, page.last_modified, page.links) for url, (_, page) in by_url.items()
    }
    result = fetch(start, include, exclude, known, timeout)
    if not result.fetched and not result.unchanged and not result.kept:
        raise SiteError(
            "no page in scope could be read"
            + (f" ({_first(result.skipped)})" if result.skipped else ": the sitemap lists none")
        )
    pages: dict[str, StoredPage] = {}
    texts: dict[str, str] = {}
    for url in sorted(result.unchanged | result.kept.keys()):
        path, page = by_url[url]
        pages[path] = page
    for url, fetched in sorted(result.fetched.items()):
        path = _unique(page_path(start, url), pages)
        text = fetched.page.text
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        pages[path] = StoredPage(
            url,
            fetched.etag,
            fetched.last_modified,
            fetched.page.anchors,
            digest,
            fetched.page.links,
        )
        texts[path] = text
    _swap_in(home, pages, texts)
    notes = tuple(f"{url}: kept the last good copy ({why})" for url, why in result.kept.items())
    notes += tuple(f"{url}: not synced ({why})" for url, why in sorted(result.skipped.items()))
    return SiteSync(snapshot_revision(pages), previous, notes + result.notes)


def page_path(start: str, url: str) -> str:
    """The file a page is stored as: its URL path below the start URL, made a safe relative
    path ending in .md (`/guide/` -> `guide/index.md`, `/a/b.html` -> `a/b.md`)."""
    base = urlsplit(start).path.rstrip("/")
    path = unquote(urlsplit(url).path)
    relative = path[len(base) :] if path.startswith(base) else path
    parts = [p for p in relative.split("/") if p not in ("", ".", "..")]
    if not parts or relative.endswith("/"):
        parts.append("index")
    safe = [_UNSAFE.sub("_", part).lstrip(".") or "_" for part in parts]
    name = safe[-1]
    for suffix in (".html", ".htm", ".xhtml", ".php", ".aspx"):
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    safe[-1] = name + ".md"
    return "/".join(safe)


def read_page_map(home: Path) -> dict[str, StoredPage]:
    """The stored snapshot's pages by file path; {} when there is none or it is unreadable."""
    try:
        raw = json.loads((home / PAGE_MAP).read_text(encoding="utf-8"))
        return {
            path: StoredPage(
                str(entry["url"]),
                str(entry.get("etag", "")),
                str(entry.get("last_modified", "")),
                tuple((int(line), str(anchor)) for line, anchor in entry.get("anchors", ())),
                str(entry.get("digest", "")),
                _links(entry.get("links")),
            )
            for path, entry in raw["pages"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _links(raw: Any) -> tuple[str, ...] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise TypeError("links is not a list")
    return tuple(str(link) for link in raw)


def snapshot_revision(pages: Mapping[str, StoredPage]) -> str:
    joined = "\n".join(f"{path}\0{page.url}\0{page.digest}" for path, page in sorted(pages.items()))
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:16] if pages else ""


def page_link(page: StoredPage, line: int) -> str:
    """The page URL with the anchor of the nearest heading at or above `line`."""
    anchor = ""
    for heading_line, heading_anchor in page.anchors:
        if heading_line > line:
            break
        anchor = heading_anchor
    return f"{page.url}#{anchor}" if anchor else page.url


def _swap_in(
    home: Path,
    pages: Mapping[str, StoredPage],
    texts: Mapping[str, str],
) -> None:
    current, fresh = home / SITE_PAGES, home / f"{SITE_PAGES}.next"
    old = home / f"{SITE_PAGES}.old"
    for leftover in (fresh, old):
        shutil.rmtree(leftover, ignore_errors=True)
    fresh.mkdir(parents=True)
    for path, page in pages.items():
        target = fresh / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path in texts:
            target.write_text(texts[path], encoding="utf-8")
        else:
            shutil.copy2(current / path, target)
        _date(target, page.last_modified)
    if current.exists():
        current.rename(old)
    fresh.rename(current)
    shutil.rmtree(old, ignore_errors=True)
    entries: dict[str, Any] = {
        path: {
            "url": page.url,
            "etag": page.etag,
            "last_modified": page.last_modified,
            "anchors": [list(a) for a in page.anchors],
            "digest": page.digest,
            "links": None if page.links is None else list(page.links),
        }
        for path, page in sorted(pages.items())
    }
    write_atomically(home / PAGE_MAP, json.dumps({"pages": entries}, indent=1).encode("utf-8"))


def _date(path: Path, last_modified: str) -> None:
    """A page's file is dated by the server's Last-Modified, so answers can say how old it is."""
    if not last_modified:
        return
    try:
        moment: datetime = parsedate_to_datetime(last_modified)
    except (TypeError, ValueError, IndexError):
        return
    os.utime(path, (moment.timestamp(), moment.timestamp()))


def _unique(path: str, taken: Mapping[str, StoredPage]) -> str:
    """Two URLs that make the same file name (`/a` and `/a.html`) get distinct files."""
    if path not in taken:
        return path
    stem = path[: -len(".md")]
    for n in range(2, 10_000):
        candidate = f"{stem}-{n}.md"
        if candidate not in taken:
            return candidate
    raise SiteError(f"too many pages map to the file {path}")


def _first(skipped: Mapping[str, str]) -> str:
    url, why = next(iter(sorted(skipped.items())))
    more = f", and {len(skipped) - 1} more" if len(skipped) > 1 else ""
    return f"{url}: {why}{more}"
