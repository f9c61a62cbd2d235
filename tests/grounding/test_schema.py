"""GroundedResponse as an OpenAI strict-mode schema, and the local checker that guards it."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from openai.lib._parsing._responses import type_to_text_format_param
from openai.lib._pydantic import to_strict_json_schema
from pydantic import BaseModel, ConfigDict

from grounding.generators.openai_gen import grounded_response_schema
from grounding.schema import GroundedResponse
from grounding.strict_schema import strict_schema_problems


def _valid() -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "required": ["name", "tags", "note"],
    }


def test_strict_schema_problems_none_for_grounded_response() -> None:
    assert strict_schema_problems(grounded_response_schema()) == []


def test_grounded_response_schema_is_what_the_sdk_parse_helper_would_send() -> None:
    # The generator builds the request format itself (so it can read refusals and truncation
    # before validating); it must still send exactly the schema the SDK's own helper derives.
    sdk_format = type_to_text_format_param(GroundedResponse)
    assert sdk_format["type"] == "json_schema"
    assert grounded_response_schema() == sdk_format["schema"]


def test_grounded_response_schema_is_valid_json_schema_that_accepts_an_answer() -> None:
    schema = grounded_response_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    claim = {"text": "x", "citations": ["E1"], "quotes": ["x"]}
    reply = {"status": "answered", "claims": [claim], "message": ""}
    jsonschema.validate(reply, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**reply, "extra": 1}, schema)


def test_grounded_response_schema_requires_at_least_one_quote_per_claim() -> None:
    schema = grounded_response_schema()
    for claim in ({"text": "x", "citations": ["E1"]}, {"text": "x", "citations": [], "quotes": []}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({"status": "answered", "claims": [claim], "message": ""}, schema)


def test_grounded_response_without_quotes_still_parses_for_replayed_answers() -> None:
    # JSON written before quotes existed parses; verification then drops its claims (unquoted).
    old = '{"status": "answered", "claims": [{"text": "x", "citations": ["E1"]}], "message": ""}'
    assert GroundedResponse.model_validate_json(old).claims[0].quotes == []


def test_grounded_response_schema_returns_a_copy() -> None:
    grounded_response_schema()["properties"].clear()
    assert "claims" in grounded_response_schema()["properties"]


def test_strict_schema_problems_none_for_a_hand_written_strict_schema() -> None:
    assert strict_schema_problems(_valid()) == []


def test_strict_schema_problems_catches_a_default() -> None:
    schema = _valid()
    schema["properties"]["name"]["default"] = "anonymous"
    (problem,) = strict_schema_problems(schema)
    assert problem.startswith("#/properties/name: `default`")


def test_strict_schema_problems_catches_a_pydantic_default_the_sdk_keeps() -> None:
    class WithDefault(BaseModel):
        model_config = ConfigDict(extra="forbid")
        status: str = "answered"

    problems = strict_schema_problems(to_strict_json_schema(WithDefault))
    assert any("`default`" in p for p in problems)


def test_strict_schema_problems_accepts_an_optional_field_without_default() -> None:
    class Optional(BaseModel):
        model_config = ConfigDict(extra="forbid")
        note: str | None

    assert strict_schema_problems(to_strict_json_schema(Optional)) == []


def test_strict_schema_problems_catches_missing_additional_properties() -> None:
    schema = _valid()
    del schema["additionalProperties"]
    assert strict_schema_problems(schema) == ["#: an object needs `additionalProperties: false`"]


def test_strict_schema_problems_catches_open_nested_objects() -> None:
    schema = _valid()
    schema["properties"]["meta"] = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a"],
        "additionalProperties": True,
    }
    schema["required"].append("meta")
    assert strict_schema_problems(schema) == [
        "#/properties/meta: an object needs `additionalProperties: false`"
    ]


def test_strict_schema_problems_catches_optional_properties() -> None:
    schema = _valid()
    schema["required"] = ["name"]
    (problem,) = strict_schema_problems(schema)
    assert "['tags', 'note'] are not all in `required`" in problem


@pytest.mark.parametrize(
    ("keyword", "value"),
    [("minLength", 1), ("maxLength", 80), ("pattern", "^E[0-9]+$"), ("format", "uri")],
)
def test_strict_schema_problems_catches_unsupported_string_keywords(
    keyword: str, value: object
) -> None:
    schema = _valid()
    schema["properties"]["name"][keyword] = value
    (problem,) = strict_schema_problems(schema)
    assert problem.startswith("#/properties/name:") and (keyword in problem or "uri" in problem)


def test_strict_schema_problems_allows_documented_formats() -> None:
    schema = _valid()
    schema["properties"]["name"]["format"] = "date-time"
    assert strict_schema_problems(schema) == []


@pytest.mark.parametrize(("min_items", "ok"), [(0, True), (1, True), (2, False)])
def test_strict_schema_problems_checks_min_items_by_value(min_items: int, ok: bool) -> None:
    schema = _valid()
    schema["properties"]["tags"]["minItems"] = min_items
    assert (strict_schema_problems(schema) == []) is ok


def test_strict_schema_problems_catches_problems_inside_defs_and_items() -> None:
    schema = grounded_response_schema()
    schema["$defs"]["GroundedClaim"]["properties"]["text"]["maxLength"] = 500
    schema["properties"]["claims"]["uniqueItems"] = True
    problems = strict_schema_problems(schema)
    assert len(problems) == 2
    assert any(p.startswith("#/$defs/GroundedClaim/properties/text: `maxLength`") for p in problems)
    assert any(p.startswith("#/properties/claims: `uniqueItems`") for p in problems)


def test_strict_schema_problems_catches_a_union_at_the_root() -> None:
    schema = {"anyOf": [_valid(), {"type": "string"}]}
    problems = strict_schema_problems(schema)
    assert problems[0].startswith("#: the root must be an object")


def test_strict_schema_problems_catches_free_form_dicts_and_dangling_refs() -> None:
    schema = _valid()
    schema["properties"]["labels"] = {"type": "object", "additionalProperties": False}
    schema["properties"]["claim"] = {"$ref": "#/$defs/Missing"}
    schema["required"] += ["labels", "claim"]
    problems = strict_schema_problems(schema)
    assert "#/properties/labels: an object must list its properties (no free-form dicts)" in (
        problems
    )
    assert "$ref '#/$defs/Missing' points at nothing" in problems


def test_strict_schema_problems_catches_too_deep_nesting() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        schema = {
            "type": "object",
            "additionalProperties": False,
            "properties": {"child": copy.deepcopy(schema)},
            "required": ["child"],
        }
    problems = strict_schema_problems(schema)
    assert len(problems) == 1 and "over 10" in problems[0]
