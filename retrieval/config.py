"""`docbot.yml`: the collections, who may read them, and how answers are made.

Errors name the file, the key and the fix; paths are resolved relative to the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

# Re-exported: the collection section is part of what `retrieval.config` offers.
from retrieval.collection_config import CHANNEL_ID as CHANNEL_ID
from retrieval.collection_config import DEFAULT_INCLUDE as DEFAULT_INCLUDE
from retrieval.collection_config import CollectionConfig as CollectionConfig
from retrieval.collection_config import FrozenModel as _Model
from retrieval.config_errors import describe
from retrieval.errors import ConfigError
from retrieval.source_keys import SITE_PAGES, git_checkout, site_home

# Ten minutes: stale docs are the complaint, and a git fetch or a revalidating crawl is cheap.
SYNC_INTERVAL_SECONDS = 600.0
# How long one answer may take, every model call and retry included. Slack users give up on a bot
# in well under a minute; a hanging model server must not hold them longer.
DEADLINE_SECONDS = 45.0
# The query rewrite's share of it: a call of a few dozen output tokens; one that takes longer is
# given up on and the question is searched as it is, leaving the answer most of its time.
REWRITE_SECONDS = 10.0
# How long a "Still need help?" press holds its question's claim before the owners' note is
# confirmed in Slack: a press after that takes the claim over (its process died between the
# claim and the post's outcome) and looks for the note before posting it (bot/escalation.py).
# The holder stops waiting on Slack after half of it, so a live one is never taken over
# mid-post; two minutes outlast a post with its rate-limit retries.
ESCALATION_LEASE_SECONDS = 120.0
TEAM_ID = re.compile(r"^[TE][A-Z0-9]+$")


class ConversationsConfig(_Model):
    dm: Literal["none", "public"] = "public"
    external: Literal["none", "public"] = "none"


class AnswerConfig(_Model):
    generator: Literal["auto", "openai", "extractive"] = "auto"
    model: str = "gpt-5-mini"
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = "low"
    api: Literal["responses", "chat"] = "responses"
    # How the answer's schema reaches the model server: strict `json_schema`, `json_object` (JSON
    # mode; docbot validates), or `auto`: json_schema until the server shows it cannot
    # (docs/configuration.md#local-model-servers).
    response_format: Literal["auto", "json_schema", "json_object"] = "auto"
    # With a model: turn the question into search queries first (grounding/rewrite.py). auto: only
    # when it may help (a thread follow-up, a question not in English); always; off.
    rewrite: Literal["auto", "always", "off"] = "auto"
    rewrite_timeout_seconds: float = Field(default=REWRITE_SECONDS, gt=0, le=600)
    timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    max_retries: int = Field(default=2, ge=0, le=10)
    deadline_seconds: float = Field(default=DEADLINE_SECONDS, gt=0, le=600)
    evidence_tokens: int = Field(default=3000, ge=200, le=100_000)
    per_source_limit: int = Field(default=2, ge=1, le=50)
    min_score: float = Field(default=0.0, ge=0)
    neighbours: bool = True
    k: int = Field(default=12, ge=1, le=100)
    # Answer not_found without calling the generator when nothing retrieved is near the question
    # (grounding/gate.py; its thresholds are fit by training/fit_gate.py).
    gate: bool = True

    @model_validator(mode="after")
    def _call_fits_the_deadline(self) -> AnswerConfig:
        if self.timeout_seconds > self.deadline_seconds:
            raise ValueError(
                f"timeout_seconds ({self.timeout_seconds:g}) is longer than deadline_seconds "
                f"({self.deadline_seconds:g}), the most a whole answer may take, so it could "
                "never be reached: lower timeout_seconds or raise deadline_seconds"
            )
        return self


class SearchConfig(_Model):
    engine: Literal["auto", "bm25", "tantivy"] = "auto"
    # Scopes with more chunks than this use tantivy under `auto`; smaller ones rank-bm25.
    auto_threshold: int = Field(default=20_000, ge=0)
    chunk_tokens: int = Field(default=350, ge=50, le=4000)
    max_file_bytes: int = Field(default=5_000_000, ge=1000)


class RetrievalConfig(_Model):
    # Offline embeddings (retrieval/embeddings.py) fused with BM25; false: BM25 alone, and
    # `docbot index` embeds nothing.
    dense: bool = True


class ServeConfig(_Model):
    """Where `docbot serve` listens in HTTP mode (Socket Mode listens nowhere). Loopback unless
    asked: a reverse proxy on the same machine reaches it, nothing else can (docs/slack.md)."""

    host: str = Field(default="127.0.0.1", pattern=r"^[A-Za-z0-9.:-]+$")
    port: int = Field(default=3000, ge=1, le=65535)


class FeedbackConfig(_Model):
    wrong: tuple[str, ...] = ("x", "-1", "thumbsdown")
    helpful: tuple[str, ...] = ("white_check_mark", "+1", "thumbsup")
    escalation_lease_seconds: float = Field(default=ESCALATION_LEASE_SECONDS, ge=1, le=3600)

    @field_validator("wrong", "helpful", mode="before")
    @classmethod
    def _quoted_numbers(cls, value: Any) -> Any:
        # YAML reads `+1` and `-1` unquoted as numbers, which pydantic would only call "not text".
        for item in value if isinstance(value, list | tuple) else ():
            if isinstance(item, int | float) and not isinstance(item, bool):
                written = f"{item:+}" if abs(item) == 1 else str(item)
                raise ValueError(
                    f"{item!r} was read as a number, not an emoji name: quote it, e.g. "
                    f'"{written}" for :{written}:'
                )
        return value

    @field_validator("wrong", "helpful")
    @classmethod
    def _emoji_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError(
                "empty: no reaction could ever count; list at least one emoji name, or drop "
                "the key to use the default"
            )
        for name in value:
            problem = emoji_name_problem(name)
            if problem:
                raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _sets_disjoint(self) -> FeedbackConfig:
        both = sorted(set(self.wrong) & set(self.helpful))
        if both:
            names = ", ".join(both)
            raise ValueError(
                f"{names} is listed in both `wrong` and `helpful`, so a reaction would count "
                "as both: keep each emoji in one of the two lists"
            )
        return self


def emoji_name_problem(name: str) -> str | None:
    """Why `name` can never match a Slack reaction's name, or None when it can.

    Reactions arrive as bare lowercase names (`x`, `+1`, `white_check_mark`; skin tones are
    stripped); Slack's names are lowercase letters, digits, `_`, `-`, `+` and `'`, and custom
    emoji may use non-Latin letters."""
    bare = name.strip(":")
    if ":" in name:
        hint = f": write `{bare}`" if bare and ":" not in bare else ""
        return (
            f"{name!r} has colons; emoji names are written without them{hint} (skin tones "
            "count as the plain emoji)"
        )
    if not name.strip():
        return "an emoji name is empty: remove the entry or write a name such as `x`"
    bad = sorted({c for c in name if not _emoji_char(c)})
    if bad:
        lower = (
            f": write `{name.lower()}`"
            if name.lower() != name and all(_emoji_char(c) for c in name.lower())
            else ""
        )
        shown = " ".join(repr(c) for c in bad)
        return (
            f"{name!r} is not a Slack emoji name (it has {shown}); names are lowercase "
            f"letters, digits, `_`, `-`, `+` and `'`{lower}"
        )
    return None


def _emoji_char(char: str) -> bool:
    if char.isascii():
        return char.islower() or char.isdigit() or char in "_-+'"
    return char.isalnum()


class Config(_Model):
    state_dir: Path = Path(".docbot")
    # A published index (retrieval/artifact.py): `docbot index` publishes there and `docbot
    # serve` loads the current version from there, read-only. None: the index in state_dir.
    index_dir: Path | None = None
    teams: tuple[str, ...] = Field(min_length=1)
    collections: tuple[CollectionConfig, ...] = Field(min_length=1)
    conversations: ConversationsConfig = ConversationsConfig()
    answer: AnswerConfig = AnswerConfig()
    search: SearchConfig = SearchConfig()
    retrieval: RetrievalConfig = RetrievalConfig()
    feedback: FeedbackConfig = FeedbackConfig()
    serve: ServeConfig = ServeConfig()
    # How often `docbot serve` syncs the git and site collections (a collection may set its
    # own); local folders are watched instead and re-indexed within seconds of an edit.
    sync_interval_seconds: float = Field(default=SYNC_INTERVAL_SECONDS, ge=1, le=7 * 86400)
    # The PostgreSQL answer store several replicas share; unset: SQLite in state_dir.
    # DOCBOT_DATABASE_URL, when set, wins (and keeps a password out of this file).
    database_url: str | None = None

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        # Never echo the value: it may hold a password.
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError(
                "must be a PostgreSQL URL, postgresql://user@host:5432/dbname (put a password "
                "in DOCBOT_DATABASE_URL instead), or be left out for SQLite in state_dir"
            )
        return value

    @field_validator("teams")
    @classmethod
    def _team_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for team in value:
            if not TEAM_ID.match(team):
                raise ValueError(
                    f"{team!r} is not a team ID: use the workspace ID (T...), found in "
                    "the workspace's settings or in any event payload"
                )
        return value

    @field_validator("collections")
    @classmethod
    def _unique_names(cls, value: tuple[CollectionConfig, ...]) -> tuple[CollectionConfig, ...]:
        seen: set[str] = set()
        for collection in value:
            if collection.name in seen:
                raise ValueError(
                    f"two collections are named {collection.name!r}: give each a unique name"
                )
            seen.add(collection.name)
        return value

    def sync_interval(self, collection: CollectionConfig) -> float:
        """Seconds between syncs of `collection` in `docbot serve`."""
        own = collection.sync_interval_seconds
        return self.sync_interval_seconds if own is None else own

    def collection(self, name: str) -> CollectionConfig:
        for collection in self.collections:
            if collection.name == name:
                return collection
        raise KeyError(name)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("DOCBOT_CONFIG", "docbot.yml"))


def _yaml_error(path: Path, exc: yaml.YAMLError) -> str:
    """PyYAML's error at its line and column of `path` (its own text says `in "<unicode
    string>"`, the text it was handed), and what usually causes one."""
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return f"{path}: not valid YAML: {exc}"
    mark = exc.problem_mark
    where = f"{path}, line {mark.line + 1}, column {mark.column + 1}"
    context = ""
    if exc.context and exc.context_mark is not None:
        context = f" ({exc.context} that starts at line {exc.context_mark.line + 1})"
    return (
        f"{where}: not valid YAML: {exc.problem}{context}: check the indentation and quoting "
        "there (a value holding `: ` or ` #`, or starting with `[`, `{`, `*`, `&` or `!`, "
        "needs quotes)"
    )


def load_config(path: Path) -> Config:
    """Read and validate `path`; relative paths in it are resolved against its folder."""
    try:
        raw_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such config file. Pass --config FILE or set DOCBOT_CONFIG; "
            "docs/configuration.md shows a complete example."
        ) from None
    except IsADirectoryError:
        raise ConfigError(
            f"{path}: is a folder, not a config file: pass --config the docbot.yml inside it"
        ) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}): save it as UTF-8"
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot read the config file ({exc.strerror}): check its permissions"
        ) from None
    try:
        raw = yaml.safe_load(raw_text)
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error(path, exc)) from exc
    if raw is None:
        raise ConfigError(
            f"{path}: the file is empty: it needs at least `teams:` and `collections:` "
            "(docs/configuration.md shows a complete example)"
        )
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping with `collections:` etc.")
    try:
        config = Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(describe(path, raw, exc, Config)) from None
    return _resolve_paths(path, config)


def _resolve_paths(path: Path, config: Config) -> Config:
    base = path.resolve().parent
    state_dir = (base / config.state_dir).resolve()
    collections = []
    for index, collection in enumerate(config.collections):
        if collection.git is not None:
            # Cloned there by `docbot index` (retrieval/git_source.py); absent until then.
            checkout = git_checkout(state_dir, collection.git, collection.branch)
            folder = checkout / "repo" / (collection.subdir or "")
            collections.append(collection.model_copy(update={"path": folder}))
            continue
        if collection.site is not None:
            # Crawled there by `docbot index` (retrieval/site_source.py); absent until then.
            folder = site_home(state_dir, collection.site) / SITE_PAGES
            collections.append(collection.model_copy(update={"path": folder}))
            continue
        folder = (base / collection.folder).resolve()
        if not folder.is_dir():
            problem = (
                f"{folder} is a file, not a folder; a collection's path must name the folder "
                "holding its documents"
                if folder.exists()
                else f"folder {folder} does not exist"
            )
            raise ConfigError(
                f"{path}: collections[{index}].path: {problem}; fix the path of collection "
                f"{collection.name!r} (it is relative to the config file)."
            )
        collections.append(collection.model_copy(update={"path": folder}))
    index_dir = None if config.index_dir is None else (base / config.index_dir).resolve()
    return config.model_copy(
        update={"state_dir": state_dir, "index_dir": index_dir, "collections": tuple(collections)}
    )
