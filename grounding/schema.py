"""What the model must return: valid as an OpenAI strict-mode JSON schema (no defaults)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict


class GroundedClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    citations: list[str]


class GroundedResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["answered", "insufficient_context"]
    claims: list[GroundedClaim]
    message: str
