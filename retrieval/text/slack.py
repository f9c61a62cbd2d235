"""Slack's message markup read as the words it stands for: the bot reads every question from
Slack with it, and the extractive generator reads questions pasted from Slack into the CLI."""

from __future__ import annotations

import re

# Slack's markup in message text: <@U..|name>, <#C..|name>, <!here>, <url|label>, <url>.
MARKUP = re.compile(r"<([^<>\s][^<>]*)>")


def markup_words(text: str) -> str:
    """Each `<...>` of Slack markup as the words it stands for, then Slack's escaping undone.

    Markup is read before unescaping: a `<` the person typed arrives as `&lt;` and is never
    markup. Slack escapes exactly `&`, `<` and `>`; `&amp;` is undone last so `&amp;lt;`
    stays `&lt;`.
    """
    text = MARKUP.sub(_plain, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _plain(match: re.Match[str]) -> str:
    """One `<...>` of Slack markup as the words it stands for in a search query."""
    target, _, label = match.group(1).partition("|")
    if target.startswith("@"):
        # Who was cc'd or quoted says nothing about the documents; their name would only
        # steer the search towards pages that happen to mention it.
        return ""
    if target.startswith("#"):
        return f"#{label}" if label else ""
    if target.startswith("!"):
        # @here/@channel/@everyone and user groups are pings; a date keeps its fallback text.
        return label if target.startswith("!date^") else ""
    return label or target  # a link: its label, else the URL itself
