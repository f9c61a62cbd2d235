"""What a `docbot.yml` validation error says: pydantic's errors in the config file's own terms.

Each line names the key (with the collection's name), what it must hold, the value found and an
example; `retrieval/config.py` owns the schema and calls `describe` when validation fails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails, PydanticUndefined

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
    "serve.host": "an IP address or host name to listen on, such as 127.0.0.1 or 0.0.0.0",
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


def describe(path: Path, raw: dict[str, Any], exc: ValidationError, root: type[BaseModel]) -> str:
    """Every error of `exc` (raised validating `raw` as `root`) on a line of its own."""
    lines = [f"{path}: invalid configuration:"]
    errors = exc.errors()
    for error in errors:
        if _is_echo_of_an_entry(error, errors):
            continue
        lines.append(f"  {_key_path(error['loc'], raw)}: {_message(error, root)}")
    return "\n".join(lines)


def _is_echo_of_an_entry(error: ErrorDetails, errors: list[ErrorDetails]) -> bool:
    """A list's "too short" that only counts the entries which failed on their own."""
    loc = error["loc"]
    return error["type"] == "too_short" and any(
        len(other["loc"]) > len(loc) and other["loc"][: len(loc)] == loc for other in errors
    )


def _message(error: ErrorDetails, root: type[BaseModel]) -> str:
    """What the key must hold, in the config file's terms, with the value found and an example."""
    kind, loc, ctx = error["type"], error["loc"], error.get("ctx", {})
    shape = _shape(loc)
    purpose, example = _REQUIRED.get(shape) or _REQUIRED.get(shape.removesuffix("[]"), ("", ""))
    example = example or _default_example(loc, root)
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


def _default_example(loc: tuple[int | str, ...], root: type[BaseModel]) -> str:
    """`evidence_tokens: 3000`, from the model's default for the key at `loc`."""
    model: Any = root
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
