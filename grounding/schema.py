"""What the model must return: valid as an OpenAI strict-mode JSON schema (no defaults)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Sent as the schema's description of `quotes`: the prompt says the same at more length.
QUOTES_DESCRIPTION = (
    "1 to 3 short verbatim excerpts (a sentence or a code line) copied from the cited evidence "
    "items, that together support the claim"
)


class GroundedClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    citations: list[str]
    # Required in the strict schema sent to the model (the SDK lists every property as required;
    # minItems 1 is portable, maxItems is not). Absent in JSON written before quotes existed, which
    # still parses: verification drops such claims as `unquoted`, since nothing anchors them.
    quotes: list[str] = Field(
        default_factory=list,
        description=QUOTES_DESCRIPTION,
        json_schema_extra={"minItems": 1},
    )


class GroundedResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["answered", "insufficient_context"]
    claims: list[GroundedClaim]
    message: str
