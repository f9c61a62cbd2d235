"""`docbot.yml`: the collections, who may read them, and how answers are made.

Errors name the file, the key and the fix; paths are resolved relative to the file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import quote

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails, PydanticUndefined

from retrieval.chunks import Chunk
from retrieval.errors import ConfigError

DEFAULT_INCLUDE = ("**/*.md", "**/*.rst", "**/*.txt")
CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]+$")
TEAM_ID = re.compile(r"^[TE][A-Z0-9]+$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CollectionConfig(_Model):
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    path: Path
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    url: str | None = None
    access: Literal["public", "private"] = "public"
    channels: tuple[str, ...] = ()

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

    @field_validator("url")
    @classmethod
    def _url_template(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("https://", "http://")):
            raise ValueError(f"url {value!r} must start with https:// (or http://)")
        try:
            value.format(path="p", start=1, end=2)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"url {value!r} may only use the placeholders {{path}}, {{start}} and {{end}}"
            ) from exc
        return value

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


class ConversationsConfig(_Model):
    dm: Literal["none", "public"] = "public"
    external: Literal["none", "public"] = "none"


class AnswerConfig(_Model):
    generator: Literal["auto", "openai", "extractive"] = "auto"
    model: str = "gpt-5-mini"
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = "low"
    api: Literal["responses", "chat"] = "responses"
    timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    max_retries: int = Field(default=2, ge=0, le=10)
    evidence_tokens: int = Field(default=3000, ge=200, le=100_000)
    per_source_limit: int = Field(default=2, ge=1, le=50)
    min_score: float = Field(default=0.0, ge=0)
    neighbours: bool = True
    k: int = Field(default=12, ge=1, le=100)


class SearchConfig(_Model):
    engine: Literal["auto", "bm25", "tantivy"] = "auto"
    # Scopes with more chunks than this use tantivy under `auto`; smaller ones rank-bm25.
    auto_threshold: int = Field(default=20_000, ge=0)
    chunk_tokens: int = Field(default=350, ge=50, le=4000)
    max_file_bytes: int = Field(default=5_000_000, ge=1000)


class FeedbackConfig(_Model):
    wrong: tuple[str, ...] = ("x", "-1", "thumbsdown")
    helpful: tuple[str, ...] = ("white_check_mark", "+1", "thumbsup")


class Config(_Model):
    state_dir: Path = Path(".docbot")
    teams: tuple[str, ...] = Field(min_length=1)
    collections: tuple[CollectionConfig, ...] = Field(min_length=1)
    conversations: ConversationsConfig = ConversationsConfig()
    answer: AnswerConfig = AnswerConfig()
    search: SearchConfig = SearchConfig()
    feedback: FeedbackConfig = FeedbackConfig()

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

    def collection(self, name: str) -> CollectionConfig:
        for collection in self.collections:
            if collection.name == name:
                return collection
        raise KeyError(name)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get("DOCBOT_CONFIG", "docbot.yml"))


def load_config(path: Path) -> Config:
    """Read and validate `path`; relative paths in it are resolved against its folder."""
    try:
        raw_text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"{path}: no such config file. Pass --config FILE or set DOCBOT_CONFIG; "
            "docs/configuration.md shows a complete example."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the config file ({exc}).") from exc
    try:
        raw = yaml.safe_load(raw_text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping with `collections:` etc.")
    try:
        config = Config.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_describe(path, raw, exc)) from None
    return _resolve_paths(path, config)


def _resolve_paths(path: Path, config: Config) -> Config:
    base = path.resolve().parent
    collections = []
    for index, collection in enumerate(config.collections):
        folder = (base / collection.path).resolve()
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
    return config.model_copy(
        update={"state_dir": (base / config.state_dir).resolve(), "collections": tuple(collections)}
    )


# What a required key is for, and an example, keyed by its shape ("collections[].path").
_REQUIRED = {
    "teams": ("list the Slack workspace IDs docbot serves", "teams: [T0123ABC]"),
    "collections": (
        "list the folders of documents docbot answers from",
        "collections: [{name: handbook, path: docs}]",
    ),
    "collections[].name": ("name the collection", "name: handbook"),
    "collections[].path": (
        "give the folder that holds the collection's documents, relative to this file",
        "path: docs",
    ),
}
_PATTERNS = {
    "collections[].name": "a letter or digit followed by letters, digits, '_', '.' or '-'",
}
_TYPES = {
    "tuple_type": "must be a list",
    "list_type": "must be a list",
    "string_type": "must be text",
    "int_parsing": "must be a whole number",
    "int_type": "must be a whole number",
    "int_from_float": "must be a whole number",
    "float_parsing": "must be a number",
    "float_type": "must be a number",
    "bool_parsing": "must be true or false",
    "bool_type": "must be true or false",
    "model_type": "must be a mapping of keys to values",
    "dict_type": "must be a mapping of keys to values",
    "path_type": "must be a path",
}
_BOUNDS = {
    "greater_than": ("gt", "must be more than"),
    "greater_than_equal": ("ge", "must be at least"),
    "less_than": ("lt", "must be less than"),
    "less_than_equal": ("le", "must be at most"),
}


def _describe(path: Path, raw: dict[str, Any], exc: ValidationError) -> str:
    lines = [f"{path}: invalid configuration:"]
    errors = exc.errors()
    for error in errors:
        if _is_echo_of_an_entry(error, errors):
            continue
        lines.append(f"  {_key_path(error['loc'], raw)}: {_message(error)}")
    return "\n".join(lines)


def _is_echo_of_an_entry(error: ErrorDetails, errors: list[ErrorDetails]) -> bool:
    """A list's "too short" that only counts the entries which failed on their own."""
    loc = error["loc"]
    return error["type"] == "too_short" and any(
        len(other["loc"]) > len(loc) and other["loc"][: len(loc)] == loc for other in errors
    )


def _message(error: ErrorDetails) -> str:
    """What the key must hold, in the config file's terms, with the value found and an example."""
    kind, loc, ctx = error["type"], error["loc"], error.get("ctx", {})
    shape = _shape(loc)
    purpose, example = _REQUIRED.get(shape) or _REQUIRED.get(shape.removesuffix("[]"), ("", ""))
    example = example or _default_example(loc)
    got = f" (got {_clip(repr(error['input']))})"
    if kind == "extra_forbidden":
        return "unknown key: remove it or check its spelling (see docs/configuration.md)"
    if kind in ("missing", "too_short"):
        word = "missing" if kind == "missing" else "empty"
        return f"{word}: {purpose}, e.g. {example}" if purpose else f"{word}{_eg(example)}"
    if kind == "literal_error":
        choices = ", ".join(re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
        return f"must be one of {choices}{got}"
    if kind == "string_pattern_mismatch":
        rule = _PATTERNS.get(shape, f"text matching {ctx.get('pattern')}")
        return f"must be {rule}{got}{_eg(example)}"
    if kind in _BOUNDS:
        bound, words = _BOUNDS[kind]
        return f"{words} {_number(ctx.get(bound))}{got}{_eg(example)}"
    if kind in _TYPES:
        return f"{_TYPES[kind]}{got}{_eg(example)}"
    return str(error["msg"]).removeprefix("Value error, ")


def _shape(loc: tuple[int | str, ...]) -> str:
    """`('collections', 0, 'path')` -> `collections[].path`."""
    return "".join("[]" if isinstance(item, int) else f".{item}" for item in loc).removeprefix(".")


def _default_example(loc: tuple[int | str, ...]) -> str:
    """`evidence_tokens: 3000`, from the model's default for the key at `loc`."""
    model: Any = Config
    field = None
    for item in loc:
        if isinstance(item, int):
            continue  # an entry of a list: the list's own model
        if model is None or item not in model.model_fields:
            return ""
        field = model.model_fields[item]
        model = _model_in(field.annotation)
    if field is None or field.default in (None, PydanticUndefined) or model is not None:
        return ""
    default = field.default
    value = list(map(str, default)) if isinstance(default, tuple) else default
    return f"{loc[-1]}: {json.dumps(str(value) if isinstance(value, Path) else value)}"


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model a field holds, directly or as the entries of a tuple."""
    for candidate in (annotation, *get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def _eg(example: str) -> str:
    return f", e.g. {example}" if example else ""


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _clip(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _key_path(loc: tuple[int | str, ...], raw: Any) -> str:
    """`('collections', 1, 'channels')` -> `collections[1] (payments).channels`."""
    parts: list[str] = []
    node = raw
    for item in loc:
        if isinstance(item, int) and parts:
            parts[-1] += f"[{item}]"
        else:
            parts.append(str(item))
        node = node[item] if _has(node, item) else None
        if isinstance(item, int) and isinstance(node, dict) and "name" in node:
            parts[-1] += f" ({node['name']})"
    return ".".join(parts) or "(top level)"


def _has(node: Any, item: int | str) -> bool:
    if isinstance(node, list):
        return isinstance(item, int) and 0 <= item < len(node)
    return isinstance(node, dict) and item in node


def source_url(collection: CollectionConfig, path: str, start: int, end: int) -> str | None:
    """The link to a cited passage, from the collection's `url` template.

    Links in answers come only from here, never from document or model text.
    """
    if collection.url is None:
        return None
    return collection.url.format(path=quote(path), start=start, end=end)


def url_resolver(config: Config) -> Callable[[Chunk], str | None]:
    """`source_url` for a chunk of any of the config's collections; None for one it lacks."""
    collections = {c.name: c for c in config.collections}

    def url_for(chunk: Chunk) -> str | None:
        collection = collections.get(chunk.collection)
        if collection is None:
            return None
        return source_url(collection, chunk.path, chunk.start_line, chunk.end_line)

    return url_for
