"""A collection's `url` template: only plain {path}, {start}, {end}, refused at load otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import load_config
from retrieval.errors import ConfigError
from retrieval.links import URL_PLACEHOLDERS, check_url_template, source_url

BASE = "https://git.example.com/handbook/blob/main/"


def _config_text(url: str) -> str:
    return f"""\
teams: [T0123ABC]
collections:
  - name: handbook
    path: handbook
    url: '{url}'
"""


def _load_error(tmp_path: Path, url: str) -> str:
    (tmp_path / "handbook").mkdir(exist_ok=True)
    path = tmp_path / "docbot.yml"
    path.write_text(_config_text(url), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


@pytest.mark.parametrize(
    ("url", "field", "fix"),
    [
        (BASE + "{path}#L{start:>50000000}", "{start:>50000000}", "write {start}"),
        (BASE + "{path}#L{start:{end}}", "{start:{end}}", "write {start}"),
        (BASE + "{path.__class__}", "{path.__class__}", "write {path}"),
        (BASE + "{path[0]}", "{path[0]}", "write {path}"),
        (BASE + "{path}#L{start!r}", "{start!r}", "write {start}"),
        (BASE + "{path!s:>9}", "{path!s:>9}", "write {path}"),
        (BASE + "{}", "{}", "use only {path}, {start}, {end}"),
        (BASE + "{0}", "{0}", "use only {path}, {start}, {end}"),
        (BASE + "{first}", "{first}", "use only {path}, {start}, {end}"),
    ],
)
def test_config_url_template_refuses_anything_but_plain_placeholders(
    tmp_path: Path, url: str, field: str, fix: str
) -> None:
    message = _load_error(tmp_path, url)
    assert "docbot.yml" in message  # the file
    assert "collections[0] (handbook).url" in message  # the collection and the key
    assert field in message and fix in message  # what is wrong and what to write


@pytest.mark.parametrize("url", [BASE + "{path}#L{start", BASE + "{path}}", BASE + "{path"])
def test_config_url_template_with_unbalanced_braces_says_how_to_write_a_brace(
    tmp_path: Path, url: str
) -> None:
    message = _load_error(tmp_path, url)
    assert "collections[0] (handbook).url" in message
    assert "not a valid template" in message and "{{" in message


def test_url_template_allows_each_plain_placeholder_and_literal_braces() -> None:
    template = BASE + "{path}?q={{x}}#L{start}-L{end}"
    assert check_url_template(template) == template
    # docs/configuration.md lists these; {commit} only for a git source.
    assert set(URL_PLACEHOLDERS) == {"path", "start", "end", "commit"}


def test_source_url_from_a_checked_template_is_as_long_as_its_parts(tmp_path: Path) -> None:
    (tmp_path / "handbook").mkdir()
    path = tmp_path / "docbot.yml"
    path.write_text(_config_text(BASE + "{path}#L{start}-L{end}"), encoding="utf-8")
    url = source_url(load_config(path).collection("handbook"), "a b.md", 7, 9)
    assert url == BASE + "a%20b.md#L7-L9"
