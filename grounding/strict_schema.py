"""The local check that a JSON schema is one OpenAI's strict structured-output mode accepts.

Pure and SDK-free: the OpenAI generator runs it on the schema it sends, so a change to
GroundedResponse that strict mode would reject fails at start-up, not on the first question.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# OpenAI strict mode accepts a subset of JSON Schema (structured-outputs guide, "Supported
# schemas"). Keywords in the first group are rejected by the API outright. Those in the second are
# accepted by current OpenAI models but rejected by older snapshots, fine-tuned models and many
# OpenAI-compatible local servers that docbot's chat mode targets; GroundedResponse needs none of
# them, so they are reported too. `format` and `minItems` are checked by value below.
STRICT_UNSUPPORTED_KEYWORDS: Mapping[str, str] = {
    "default": "defaults are not supported: every property is required",
    "allOf": "only anyOf composition is supported",
    "oneOf": "only anyOf composition is supported",
    "not": "`not` is not supported",
    "if": "conditional schemas are not supported",
    "then": "conditional schemas are not supported",
    "else": "conditional schemas are not supported",
    "dependentRequired": "dependent schemas are not supported",
    "dependentSchemas": "dependent schemas are not supported",
    "patternProperties": "objects must list fixed properties",
    "unevaluatedProperties": "objects must list fixed properties",
    "propertyNames": "objects must list fixed properties",
    "minProperties": "object size limits are not supported",
    "maxProperties": "object size limits are not supported",
    "prefixItems": "tuple arrays are not supported",
    "unevaluatedItems": "array item constraints are not supported",
    "contains": "array item constraints are not supported",
    "minContains": "array item constraints are not supported",
    "maxContains": "array item constraints are not supported",
    "uniqueItems": "array item constraints are not supported",
    "minLength": "string length limits are not supported",
    "maxLength": "string length limits are not supported",
    "pattern": "regex patterns are rejected by older models and local servers",
    "minimum": "numeric bounds are rejected by older models and local servers",
    "maximum": "numeric bounds are rejected by older models and local servers",
    "exclusiveMinimum": "numeric bounds are rejected by older models and local servers",
    "exclusiveMaximum": "numeric bounds are rejected by older models and local servers",
    "multipleOf": "numeric bounds are rejected by older models and local servers",
    "maxItems": "array size limits are rejected by older models and local servers",
}
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
STRICT_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
STRICT_MAX_DEPTH = 10  # object nesting levels
STRICT_MAX_PROPERTIES = 5000
STRICT_MAX_ENUM_VALUES = 1000


def strict_schema_problems(schema: Mapping[str, Any]) -> list[str]:
    """What OpenAI strict mode would reject in `schema`, each with its JSON pointer; [] if none."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("#: the root must be an object (not anyOf or another type)")
    counts = {"properties": 0, "enum": 0}
    _walk(schema, "#", 1, problems, counts)
    for name, definition in _definitions(schema):
        _walk(definition, f"#/$defs/{name}", 1, problems, counts)
    if counts["properties"] > STRICT_MAX_PROPERTIES:
        problems.append(f"#: {counts['properties']} properties, over {STRICT_MAX_PROPERTIES}")
    if counts["enum"] > STRICT_MAX_ENUM_VALUES:
        problems.append(f"#: {counts['enum']} enum values, over {STRICT_MAX_ENUM_VALUES}")
    problems += _dangling_refs(schema)
    return problems


def _definitions(schema: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    found: list[tuple[str, Mapping[str, Any]]] = []
    for key in ("$defs", "definitions"):
        block = schema.get(key)
        if isinstance(block, Mapping):
            found += [(name, node) for name, node in block.items() if isinstance(node, Mapping)]
    return found


def _walk(
    node: Mapping[str, Any], path: str, depth: int, problems: list[str], counts: dict[str, int]
) -> None:
    problems += _keyword_problems(node, path)
    types = node.get("type")
    type_set = set(types) if isinstance(types, list) else {types} if types else set()
    if "object" in type_set or "properties" in node:
        problems += _object_problems(node, path, depth)
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            counts["properties"] += len(properties)
            for key, child in properties.items():
                if isinstance(child, Mapping):
                    _walk(child, f"{path}/properties/{key}", depth + 1, problems, counts)
    if "array" in type_set:
        items = node.get("items")
        if isinstance(items, Mapping):
            _walk(items, f"{path}/items", depth, problems, counts)
        else:
            problems.append(f"{path}: an array must give a single `items` schema")
    for index, variant in enumerate(node.get("anyOf") or ()):
        if isinstance(variant, Mapping):
            _walk(variant, f"{path}/anyOf/{index}", depth, problems, counts)
    if isinstance(node.get("enum"), list):
        counts["enum"] += len(node["enum"])


def _keyword_problems(node: Mapping[str, Any], path: str) -> list[str]:
    problems = [
        f"{path}: `{key}` — {why}"
        for key, why in STRICT_UNSUPPORTED_KEYWORDS.items()
        if key in node
    ]
    if "format" in node and node["format"] not in STRICT_FORMATS:
        problems.append(f"{path}: format {node['format']!r} is not one of {sorted(STRICT_FORMATS)}")
    # 0 and 1 are accepted everywhere strict mode is; larger minimums only by newer models.
    if isinstance(node.get("minItems"), int) and node["minItems"] > 1:
        problems.append(f"{path}: minItems {node['minItems']} — only 0 or 1 is portable")
    types = node.get("type")
    for name in types if isinstance(types, list) else [types] if types else []:
        if name not in STRICT_TYPES:
            problems.append(f"{path}: type {name!r} is not supported")
    return problems


def _object_problems(node: Mapping[str, Any], path: str, depth: int) -> list[str]:
    problems: list[str] = []
    if node.get("additionalProperties") is not False:
        problems.append(f"{path}: an object needs `additionalProperties: false`")
    properties = node.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        problems.append(f"{path}: an object must list its properties (no free-form dicts)")
        return problems
    missing = [key for key in properties if key not in (node.get("required") or ())]
    if missing:
        problems.append(f"{path}: properties {missing} are not all in `required`")
    if depth > STRICT_MAX_DEPTH:
        problems.append(f"{path}: nested {depth} objects deep, over {STRICT_MAX_DEPTH}")
    return problems


def _dangling_refs(schema: Mapping[str, Any]) -> list[str]:
    names = {
        f"#/{key}/{name}" for key in ("$defs", "definitions") for name in schema.get(key) or {}
    }
    refs: list[str] = []
    _collect_refs(schema, refs)
    return [f"$ref {ref!r} points at nothing" for ref in refs if ref != "#" and ref not in names]


def _collect_refs(node: object, refs: list[str]) -> None:
    if isinstance(node, Mapping):
        if isinstance(node.get("$ref"), str):
            refs.append(node["$ref"])
        for value in node.values():
            _collect_refs(value, refs)
    elif isinstance(node, list):
        for value in node:
            _collect_refs(value, refs)
