"""A real documentation website on 127.0.0.1 for the `site:` source tests: aiohttp serving
whatever `pages` holds (path -> Page), with a log of the requests it answered."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web


@dataclass
class Page:
    body: str
    status: int = 200
    content_type: str = "text/html"
    etag: str = ""
    last_modified: str = ""
    hang: bool = False  # answers only once the site stops: a page slower than any timeout


@dataclass
class SiteServer:
    pages: dict[str, Page] = field(default_factory=dict)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    port: int = 0
    # Set (on the site's loop) when it stops, so a hanging page's handler ends at once instead
    # of holding the stop until some fixed time has passed.
    stopping: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def sitemap(self, *paths: str, at: str = "/sitemap.xml") -> None:
        urls = "".join(f"<url><loc>{self.url}{p}</loc></url>" for p in paths)
        self.pages[at] = Page(
            '<?xml version="1.0" encoding="UTF-8"?>'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
            content_type="application/xml",
        )

    def asked(self, path: str) -> list[dict[str, str]]:
        return [headers for asked, headers in self.requests if asked == path]

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append((request.path, dict(request.headers)))
        page = self.pages.get(request.path)
        if page is None:
            return web.Response(status=404, text="not found")
        if page.hang:
            await self.stopping.wait()
        if page.etag and request.headers.get("If-None-Match") == page.etag:
            return web.Response(status=304)
        headers = {"ETag": page.etag} if page.etag else {}
        if page.last_modified:
            headers["Last-Modified"] = page.last_modified
        return web.Response(
            status=page.status, text=page.body, content_type=page.content_type, headers=headers
        )


def html(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><title>{title}</title></head><body>"
        f"<nav><a href='/'>Home</a></nav><main>{body}</main><footer>(c) docs</footer>"
        "</body></html>"
    )


@contextmanager
def running_site() -> Iterator[SiteServer]:
    """Start the site on a free loopback port; stopped (and its thread joined) on exit."""
    server = SiteServer()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    runner: list[web.AppRunner] = []

    async def start() -> None:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", server._handle)
        app_runner = web.AppRunner(app, access_log=None)
        await app_runner.setup()
        site = web.TCPSite(app_runner, "127.0.0.1", 0)
        await site.start()
        server.port = app_runner.addresses[0][1]
        runner.append(app_runner)
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()))
    thread.start()
    ready.wait(10)
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(server.stopping.set)
        asyncio.run_coroutine_threadsafe(runner[0].cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
