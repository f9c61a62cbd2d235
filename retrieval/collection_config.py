"""A collection in `docbot.yml`: where its documents come from (retrieval/source_keys.py checks
the source keys), which files or pages it reads, how its passages are linked, and who may read it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from retrieval.links import check_url_template, template_fields
from retrieval.source_keys import (
    check_branch,
    check_git_url,
    check_site_url,
    check_subdir,
    source_problem,
)

DEFAULT_INCLUDE = ("**/*.md", "**/*.rst", "**/*.txt")
CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]+$")
# Who owns a collection's docs: a user ID, or a user group in Slack's mention syntax.
OWNER_ID = re.compile(r"^(?:[UW][A-Z0-9]+|<!subteam\^S[A-Z0-9]+>)$")


class FrozenModel(BaseModel):
    """Every config section: unknown keys are errors, values never change after loading."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class CollectionConfig(FrozenModel):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    # Exactly one source (retrieval/source_keys.py): a local folder, a git repository that
    # `docbot index` clones under state_dir, or a website it crawls into state_dir. After
    # load_config, `path` is always the folder read (for git: the checkout, or its `subdir`;
    # for a site: its pages as Markdown); use `folder`.
    path: Path | None = None
    git: str | None = None
    branch: str | None = None  # git only; default: the remote's default branch
    subdir: str | None = None  # git only; default: the whole repository
    site: str | None = None
    # File globs; for a `site:`, URL path patterns (default: every page under the start URL).
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    url: str | None = None
    access: Literal["public", "private"] = "public"
    channels: tuple[str, ...] = ()
    # Mentioned when someone presses "Still need help?" on an answer from this collection.
    owners: tuple[str, ...] = ()
    # A git or site source's own sync schedule in `docbot serve`; None: the top-level one.
    sync_interval_seconds: float | None = Field(default=None, ge=1, le=7 * 86400)

    @field_validator("include")
    @classmethod
    def _include_not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or not all(p.strip() for p in value):
            raise ValueError(
                "include is empty: list at least one glob such as '**/*.md', or drop the key "
                f"to use the default {list(DEFAULT_INCLUDE)}"
            )
        return value

    @field_validator("channels")
    @classmethod
    def _channel_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for channel in value:
            if not CHANNEL_ID.match(channel):
                raise ValueError(
                    f"{channel!r} is not a channel ID: use the ID (C..., G... or D...), never the "
                    "name, which can change; in Slack, open the channel details to copy its ID"
                )
        return value

    @field_validator("owners")
    @classmethod
    def _owner_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for owner in value:
            if not OWNER_ID.match(owner):
                raise ValueError(
                    f"{owner!r} is not a user or user-group ID: use a user ID (U...), or a user "
                    "group as <!subteam^S...>, never a name or @handle, which can change; in "
                    'Slack, a person\'s profile menu has "Copy member ID"'
                )
        return value

    @field_validator("url")
    @classmethod
    def _url_template(cls, value: str | None) -> str | None:
        return None if value is None else check_url_template(value)

    @field_validator("git")
    @classmethod
    def _git_url(cls, value: str | None) -> str | None:
        return None if value is None else check_git_url(value)

    @field_validator("site")
    @classmethod
    def _site_url(cls, value: str | None) -> str | None:
        return None if value is None else check_site_url(value)

    @field_validator("branch")
    @classmethod
    def _branch(cls, value: str | None) -> str | None:
        return None if value is None else check_branch(value)

    @field_validator("subdir")
    @classmethod
    def _subdir(cls, value: str | None) -> str | None:
        return None if value is None else check_subdir(value)

    @model_validator(mode="after")
    def _one_source(self) -> CollectionConfig:
        problem = source_problem(
            self.name,
            {"path": self.path, "git": self.git, "branch": self.branch, "subdir": self.subdir}
            | {"site": self.site},
        )
        if problem:
            raise ValueError(problem)
        if self.path is not None and self.sync_interval_seconds is not None:
            raise ValueError(
                f"collection {self.name!r} is a local folder, which `docbot serve` watches for "
                "edits instead of syncing: remove `sync_interval_seconds` (it applies to `git:` "
                "and `site:` sources)"
            )
        if self.site is not None and self.url is not None:
            raise ValueError(
                f"collection {self.name!r}: a `site:` source links to its own pages (the page "
                "URL and the heading's anchor): remove `url`"
            )
        if self.url is not None and "commit" in template_fields(self.url) and self.git is None:
            raise ValueError(
                f"collection {self.name!r}: url uses {{commit}}, which only a `git:` source "
                "has: remove {commit} from the url, or make the collection a git source"
            )
        return self

    @property
    def file_globs(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(include, exclude) over the folder's files. A site's patterns are over its URLs,
        applied when it is crawled; its folder holds only the pages they chose."""
        return (("**/*.md",), ()) if self.site is not None else (self.include, self.exclude)

    @property
    def site_patterns(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """A site's (include, exclude) URL path patterns; by default all under the start URL."""
        start = urlsplit(self.site or "/").path
        include = self.include if "include" in self.model_fields_set else (start + "**",)
        return include, self.exclude

    @property
    def folder(self) -> Path:
        """The folder whose files are indexed (a git source's checkout or its subdir)."""
        if self.path is None:
            raise ValueError(f"collection {self.name!r} was not loaded by load_config")
        return self.path

    @model_validator(mode="after")
    def _private_needs_channels(self) -> CollectionConfig:
        if self.access == "private" and not self.channels:
            raise ValueError(
                f"collection {self.name!r} is private but lists no channels: add "
                "`channels: [C...]` with the IDs of the channels that may read it, "
                "or make it public"
            )
        if self.access == "public" and self.channels:
            raise ValueError(
                f"collection {self.name!r} is public, so `channels` has no effect: remove it, "
                "or set `access: private`"
            )
        return self
