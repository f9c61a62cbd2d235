"""Fetching a documentation website politely: robots.txt, the sitemap (or links under the start
URL when there is none), one host, the collection's `include`/`exclude` URL path patterns, a cap
on concurrent requests and on page size, and revalidation with ETag / Last-Modified.

Pure of the disk: `crawl` takes what the last sync kept (`Known`) and returns what each page is
now. retrieval/site_source.py writes the result into the collection's folder.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.robotparser import RobotFileParser
from xml.etree import ElementTree

from retrieval.errors import DocbotError
from retrieval.files import glob_regex
from retrieval.html_text import PageText, page_text

if TYPE_CHECKING:
    # Imported where a crawl runs: aiohttp costs ~0.2 s to import, and every command that
    # imports the index (`docbot search` among them) would pay it without ever crawling.
    import aiohttp

USER_AGENT = "docbot (documentation sync; https://github.com/docbot)"
CONCURRENCY = 4  # requests in flight to one site
PAGE_BYTES = 2_000_000  # a page larger than this is skipped, not truncated
SITEMAP_BYTES = 20_000_000
MAX_PAGES = 5_000  # per collection: a crawl that finds more stops and says so
MAX_SITEMAPS = 50  # sitemap index files followed per sync
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_SITEMAP_NS = re.compile(r"^\{[^}]*\}")


class SiteError(DocbotError):
    """The site as a whole cannot be synced now (unreachable, robots.txt fails, bad sitemap)."""


@dataclass(frozen=True, slots=True)
class Known:
    """What the last good sync stored for a page URL."""

    etag: str = ""
    last_modified: str = ""
    # The page's links, followed again when it answers 304 (a crawl without a sitemap goes on
    # through an unchanged page); None for a snapshot stored before links were kept, so the
    # page is fetched whole once instead of revalidated.
    links: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Fetched:
    page: PageText
    etag: str
    last_modified: str


@dataclass(frozen=True, slots=True)
class Crawl:
    fetched: dict[str, Fetched]  # page URL -> new content
    unchanged: frozenset[str]  # answered 304 Not Modified: keep the stored copy
    kept: dict[str, str]  # failed this time (5xx, timeout): keep the stored copy; url -> why
    skipped: dict[str, str]  # not stored: url -> why (404, not HTML, too large, robots)
    notes: tuple[str, ...] = ()  # about the crawl as a whole (e.g. the page cap was reached)


@dataclass(slots=True)
class _Scope:
    """Which URLs belong to the collection."""

    start: str
    include: tuple[re.Pattern[str], ...]
    exclude: tuple[re.Pattern[str], ...]
    robots: RobotFileParser | None = None

    def wants(self, url: str) -> bool:
        start, parts = urlsplit(self.start), urlsplit(url)
        if (parts.scheme, parts.netloc) != (start.scheme, start.netloc):
            return False  # another host (or scheme, or port): never followed
        if parts.query or not parts.path.startswith(start.path or "/"):
            return False
        return self.matches(url)

    def matches(self, url: str) -> bool:
        """Whether the collection's `include` and not its `exclude` patterns take the page."""
        path = urlsplit(url).path or "/"
        if not any(p.fullmatch(path) for p in self.include):
            return False
        return not any(p.fullmatch(path) for p in self.exclude)

    def allowed(self, url: str) -> bool:
        return self.robots is None or self.robots.can_fetch(USER_AGENT, url)


@dataclass(slots=True)
class _Limits:
    timeout: float
    concurrency: int = CONCURRENCY
    page_bytes: int = PAGE_BYTES
    max_pages: int = MAX_PAGES
    semaphore: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.semaphore = asyncio.Semaphore(self.concurrency)


def crawl(
    start: str,
    include: Iterable[str],
    exclude: Iterable[str],
    known: Mapping[str, Known],
    timeout: float,
    *,
    max_pages: int = MAX_PAGES,
) -> Crawl:
    """Fetch the site under `start` now. SiteError when the site cannot be read at all, so the
    caller keeps its last good snapshot."""
    scope = _Scope(
        start,
        tuple(glob_regex(p) for p in include),
        tuple(glob_regex(p) for p in exclude),
    )
    return asyncio.run(_crawl(scope, known, _Limits(timeout, max_pages=max_pages)))


async def _crawl(scope: _Scope, known: Mapping[str, Known], limits: _Limits) -> Crawl:
    import aiohttp

    client_timeout = aiohttp.ClientTimeout(total=limits.timeout)
    headers = {"User-Agent": USER_AGENT}
    async with aiohttp.ClientSession(timeout=client_timeout, headers=headers) as session:
        robots_text = await _robots(session, scope.start)
        scope.robots = RobotFileParser()
        scope.robots.parse(robots_text.splitlines())
        urls = await _sitemap_urls(session, scope, robots_text)
        if urls is not None:
            wanted = [u for u in urls if scope.wants(u)]
            return await _fetch_listed(session, scope, wanted, known, limits)
        return await _follow_links(session, scope, known, limits)


async def _robots(session: aiohttp.ClientSession, start: str) -> str:
    """robots.txt's text; "" (everything allowed) when the site has none. A server error or no
    answer means the site cannot be synced now (RFC 9309: assume nothing may be fetched)."""
    url = urljoin(start, "/robots.txt")
    status, body, _ = await _get(session, url, SITEMAP_BYTES)
    if status == 200:
        return body.decode("utf-8", "replace")
    if 400 <= status < 500:
        return ""
    raise SiteError(f"{url} {_answered(status)}")


async def _sitemap_urls(
    session: aiohttp.ClientSession, scope: _Scope, robots_text: str
) -> list[str] | None:
    """Page URLs from the site's sitemap(s), in their order; None when the site has none."""
    declared = [
        line.split(":", 1)[1].strip()
        for line in robots_text.splitlines()
        if line.lower().startswith("sitemap:")
    ]
    candidates = declared or [
        urljoin(scope.start, "sitemap.xml"),
        urljoin(scope.start, "/sitemap.xml"),
    ]
    queue = list(dict.fromkeys(candidates))
    pages: dict[str, None] = {}
    found_one = False
    seen = 0
    while queue and seen < MAX_SITEMAPS:
        url = queue.pop(0)
        seen += 1
        if urlsplit(url).netloc != urlsplit(scope.start).netloc:
            continue  # a sitemap on another host is not this site's to list
        status, body, _ = await _get(session, url, SITEMAP_BYTES)
        if status in (404, 410):
            continue
        if status != 200:
            raise SiteError(f"{url} {_answered(status)}")
        found_one = True
        kind, locations = _read_sitemap(url, body)
        if kind == "sitemapindex":
            queue.extend(locations)
        else:
            pages.update(dict.fromkeys(locations))
        if not declared:
            break  # the start URL's own sitemap.xml answered: the root one is not needed
    return list(pages) if found_one else None


def _read_sitemap(url: str, body: bytes) -> tuple[str, list[str]]:
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as exc:
        raise SiteError(f"{url} is not a readable sitemap (XML error: {exc})") from None
    kind = _SITEMAP_NS.sub("", root.tag)
    if kind not in ("urlset", "sitemapindex"):
        raise SiteError(f"{url} is not a sitemap: its root element is <{kind}>")
    locations = []
    for element in root.iter():
        if _SITEMAP_NS.sub("", element.tag) == "loc" and element.text:
            locations.append(urldefrag(urljoin(url, element.text.strip())).url)
    return kind, locations


async def _fetch_listed(
    session: aiohttp.ClientSession,
    scope: _Scope,
    urls: list[str],
    known: Mapping[str, Known],
    limits: _Limits,
) -> Crawl:
    result = _Result()
    if len(urls) > limits.max_pages:
        result.notes.append(
            f"the sitemap lists {len(urls):,} pages in scope; only the first "
            f"{limits.max_pages:,} are synced"
        )
        urls = urls[: limits.max_pages]
    await asyncio.gather(*(_page(session, scope, u, known, limits, result) for u in urls))
    return result.done()


async def _follow_links(
    session: aiohttp.ClientSession,
    scope: _Scope,
    known: Mapping[str, Known],
    limits: _Limits,
) -> Crawl:
    """No sitemap: the pages reachable by links from the start URL, within the scope."""
    result = _Result()
    start = urldefrag(scope.start).url
    seen = {start}
    frontier = [start]
    first = True
    while frontier:
        batch, frontier = frontier, []
        links = await asyncio.gather(
            *(_page(session, scope, u, known, limits, result) for u in batch)
        )
        if first and start not in result.fetched and start not in result.unchanged:
            why = result.kept.get(start) or result.skipped.get(start, "no answer")
            raise SiteError(f"the start page {start} cannot be read ({why})")
        first = False
        for url in (link for found in links for link in found):
            if url in seen or not scope.wants(url):
                continue
            if len(seen) >= limits.max_pages:
                result.notes.append(
                    f"more than {limits.max_pages:,} pages are linked in scope; the rest "
                    "are not synced"
                )
                frontier = []
                break
            seen.add(url)
            frontier.append(url)
    if not scope.matches(start):
        # Read for its links only: `include`/`exclude` leave the start page itself out.
        result.fetched.pop(start, None)
        result.unchanged.discard(start)
    return result.done()


@dataclass(slots=True)
class _Result:
    fetched: dict[str, Fetched] = field(default_factory=dict)
    unchanged: set[str] = field(default_factory=set)
    kept: dict[str, str] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def done(self) -> Crawl:
        return Crawl(
            self.fetched,
            frozenset(self.unchanged),
            self.kept,
            self.skipped,
            tuple(dict.fromkeys(self.notes)),
        )


async def _page(
    session: aiohttp.ClientSession,
    scope: _Scope,
    url: str,
    known: Mapping[str, Known],
    limits: _Limits,
    result: _Result,
) -> tuple[str, ...]:
    """Fetch one page into `result`; the links it has (for a crawl without a sitemap)."""
    if not scope.allowed(url):
        result.skipped[url] = "robots.txt disallows it"
        return ()
    before = known.get(url)
    # A page stored with its links is revalidated; one from before links were kept is fetched
    # whole, so its links are known, yet its last good copy is still kept if it fails.
    headers = {}
    if before is not None and before.links is not None and before.etag:
        headers["If-None-Match"] = before.etag
    if before is not None and before.links is not None and before.last_modified:
        headers["If-Modified-Since"] = before.last_modified
    async with limits.semaphore:
        status, body, response_headers = await _get(session, url, limits.page_bytes, headers)
    if status == 304 and before is not None:
        result.unchanged.add(url)
        return before.links or ()
    if status in (404, 410):
        result.skipped[url] = f"HTTP {status}: gone from the site"
        return ()
    if status == -1:
        result.skipped[url] = f"larger than {limits.page_bytes:,} bytes"
        return ()
    if status != 200:
        why = _answered(status)
        if before is None:
            result.skipped[url] = why
            return ()
        result.kept[url] = why  # its last good copy, which still leads to the pages it linked
        return before.links or ()
    content_type = response_headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    if content_type and content_type not in _HTML_TYPES:
        result.skipped[url] = f"not an HTML page ({content_type})"
        return ()
    page = page_text(_decode(body, response_headers.get("Content-Type", "")), url)
    result.fetched[url] = Fetched(
        page, response_headers.get("ETag", ""), response_headers.get("Last-Modified", "")
    )
    return page.links


async def _get(
    session: aiohttp.ClientSession,
    url: str,
    cap: int,
    headers: Mapping[str, str] | None = None,
    redirects: int = 5,
) -> tuple[int, bytes, Mapping[str, str]]:
    """(status, body, headers); status 0 when the server gave no answer, -1 when the body is
    over `cap` bytes. Up to `redirects` redirects are followed, only within the same host."""
    import aiohttp

    try:
        async with session.get(url, headers=headers, allow_redirects=False) as response:
            if response.status in (301, 302, 303, 307, 308):
                target = urljoin(url, response.headers.get("Location", ""))
                if redirects == 0 or urlsplit(target).netloc != urlsplit(url).netloc:
                    return response.status, b"", {}
                return await _get(session, target, cap, headers, redirects - 1)
            body = await response.content.read(cap + 1)
            if len(body) > cap:
                return -1, b"", {}
            return response.status, body, response.headers.copy()
    except (aiohttp.ClientError, TimeoutError, OSError):
        return 0, b"", {}


def _answered(status: int) -> str:
    if status == 0:
        return "gave no answer in time (or refused the connection)"
    if status == -1:
        return "answered with more than the size cap"
    return f"answered HTTP {status}"


def _decode(body: bytes, content_type: str) -> str:
    charset = "utf-8"
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip("\"'")
    try:
        return body.decode(charset, "replace")
    except LookupError:
        return body.decode("utf-8", "replace")
