"""The structured-call seam: instructions and user turns in, one validated pydantic value out.

Both model calls of an answer go through it: the query rewrite (grounding/rewrite.py) and the
grounded answer (OpenAIGenerator). The OpenAI implementation (openai_gen.OpenAIModel) owns the
transport, retries, deadline and the response_format negotiation with local servers; callers
only name the schema they want back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from grounding.answer import Usage
from grounding.deadline import Deadline

T = TypeVar("T", bound=BaseModel)

# How the schema reaches the server: `json_schema` (strict structured output), `json_object` (JSON
# mode, the schema in the instructions, validated here), or `auto` (json_schema until the server
# shows it does not support it, then json_object for the rest of the process).
ResponseFormat = Literal["auto", "json_schema", "json_object"]


@dataclass(frozen=True, slots=True)
class StructuredTask(Generic[T]):
    schema: type[T]
    name: str  # the schema's name as sent to the server, e.g. grounded_response
    instructions: str  # the system / developer message
    messages: tuple[str, ...]  # the user turns, in order
    # When set, the reply is streamed and each piece of its text handed here as it arrives
    # (grounding/streamed.py reads claims from it); the validated value still comes at the end.
    on_text: Callable[[str], None] | None = None


@dataclass(frozen=True, slots=True)
class Structured(Generic[T]):
    value: T
    usage: Usage = Usage()


class StructuredModel(Protocol):
    @property
    def name(self) -> str:
        """`openai:<model>`."""
        ...

    async def complete(
        self, task: StructuredTask[T], deadline: Deadline, user_id: str | None = None
    ) -> Structured[T]:
        """The server's reply as `task.schema`; raises GenerationError (its kinds) otherwise."""
        ...


@runtime_checkable
class ModelBacked(Protocol):
    """A generator that answers with a model, which other calls of the answer may share."""

    @property
    def structured(self) -> StructuredModel: ...
