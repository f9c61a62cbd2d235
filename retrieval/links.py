"""Links to cited lines: a collection's `url` template, checked when docbot.yml loads and filled
for every source. Links in answers come only from here, never from document or model text.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import quote

from retrieval.source_keys import site_home

if TYPE_CHECKING:
    from retrieval.chunks import Chunk
    from retrieval.config import CollectionConfig, Config

# What a template may name (docs/configuration.md lists them): the file, the first and last line,
# and for a git source the commit that was indexed (so a link shows the lines that were cited).
URL_PLACEHOLDERS = ("path", "start", "end", "commit")


def check_url_template(template: str) -> str:
    """`template` when it is an http(s) URL using only plain `{placeholder}`s, else ValueError.

    Formatting is Python's str.format, so a template could ask for more than a value: a format
    spec (`{start:>50000000}` pads to 50 MB), a conversion (`{start!r}`), or an attribute or
    index (`{path.__class__}`, `{path[0]}`). Each is refused, saying what to write instead.
    """
    if not template.startswith(("https://", "http://")):
        raise ValueError(f"url {template!r} must start with https:// (or http://)")
    try:
        fields = [(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(template)]
    except ValueError as exc:
        raise ValueError(
            f"url {template!r} is not a valid template ({exc}): write placeholders as "
            f"{_allowed()}, and a literal brace as {{{{ or }}}}"
        ) from None
    for name, spec, conversion in fields:
        if name is None:
            continue  # the literal text after the last placeholder
        problem = _field_problem(name, spec, conversion)
        if problem:
            raise ValueError(f"url {template!r}: {problem}")
    return template


def template_fields(template: str) -> frozenset[str]:
    """The placeholder names a checked template uses."""
    return frozenset(
        name for _, name, _, _ in string.Formatter().parse(template) if name is not None
    )


def _field_problem(name: str, spec: str | None, conversion: str | None) -> str | None:
    field = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
    field += "}"
    if name not in URL_PLACEHOLDERS:
        base = name.split(".", 1)[0].split("[", 1)[0]
        if base in URL_PLACEHOLDERS:
            return (
                f"{field} reaches into a value (attribute or index access is not allowed): "
                f"write {{{base}}}"
            )
        return f"{field} is not one of the placeholders docbot fills: use only {_allowed()}"
    if conversion:
        return f"{field} has a conversion (!{conversion}), which is not allowed: write {{{name}}}"
    if spec:
        return f"{field} has a format spec (:{spec}), which is not allowed: write {{{name}}}"
    return None


def _allowed() -> str:
    return ", ".join("{" + name + "}" for name in URL_PLACEHOLDERS)


def source_url(
    collection: CollectionConfig, path: str, start: int, end: int, commit: str = ""
) -> str | None:
    """The link to a cited passage, from the collection's `url` template.

    `commit` is the revision the index holds for a git source; a template naming {commit}
    gets no link without one (a link to another revision could show other lines).
    Links in answers come only from here, never from document or model text.
    """
    if collection.url is None:
        return None
    if not commit and "commit" in template_fields(collection.url):
        return None
    return collection.url.format(path=quote(path), start=start, end=end, commit=quote(commit))


def url_resolver(
    config: Config, revisions: Mapping[str, str] | None = None
) -> Callable[[Chunk], str | None]:
    """`source_url` for a chunk of any of the config's collections; None for one it lacks.

    `revisions` maps a git collection to the commit its indexed files are from
    (`Index.revisions()`). A `site:` collection's passages link to their page, at the anchor of
    the nearest heading above them (the page map its last sync wrote).
    """
    # Here, not at the top: retrieval.site_source imports retrieval.files (through the crawler),
    # which imports the config, whose module imports this; and loading the config need not
    # load the crawler's aiohttp.
    from retrieval.site_source import page_link, read_page_map

    collections = {c.name: c for c in config.collections}
    commits = dict(revisions or {})
    sites = {
        c.name: read_page_map(site_home(config.state_dir, c.site))
        for c in config.collections
        if c.site is not None
    }

    def url_for(chunk: Chunk) -> str | None:
        collection = collections.get(chunk.collection)
        if collection is None:
            return None
        if chunk.collection in sites:
            page = sites[chunk.collection].get(chunk.path)
            return None if page is None else page_link(page, chunk.start_line)
        commit = commits.get(chunk.collection, "")
        return source_url(collection, chunk.path, chunk.start_line, chunk.end_line, commit)

    return url_for
