"""The Generator seam: a question and its evidence in, a GroundedResponse out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from grounding.answer import Usage
from grounding.deadline import Deadline
from grounding.evidence import EvidencePacket, PacketSize
from grounding.schema import GroundedResponse
from retrieval.errors import DocbotError


@dataclass(frozen=True, slots=True)
class Prompt:
    instructions: str  # the system / developer message
    input: str  # the question and the evidence blocks


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    packet: EvidencePacket
    prompt: Prompt
    user_id: str | None = None  # hashed by the generator before it leaves the process
    correction: str | None = None  # on regeneration: the error in the previous response
    # The answer's one deadline, shared by every call for it (the regeneration too); None: the
    # generator's own per-call timeout is the only limit.
    deadline: Deadline | None = None

    def turns(self) -> tuple[str, ...]:
        """The question with its evidence, then (on regeneration) the error in the last reply.

        The correction is sent verbatim as its own turn: `grounding.prompt.correction_note` owns
        the wording (the unknown ids and the valid labels), so a generator adds none of its own.
        """
        if self.correction:
            return (self.prompt.input, self.correction)
        return (self.prompt.input,)


@dataclass(frozen=True, slots=True)
class Generation:
    response: GroundedResponse
    usage: Usage = Usage()


class GenerationError(DocbotError):
    """The generator could not produce a usable response; the pipeline answers `error`."""

    def __init__(self, kind: str, message: str) -> None:
        # kind: refusal | incomplete | invalid | rate_limited | timeout | unavailable | auth
        # | quota (the account's, exhausted) | rejected (the server refused the request
        # itself: unknown model, unsupported option)
        super().__init__(message)
        self.kind = kind


class Generator(Protocol):
    @property
    def name(self) -> str:
        """`extractive` or `openai:<model>`."""
        ...

    async def generate(self, request: GenerationRequest) -> Generation: ...


@runtime_checkable
class Closable(Protocol):
    """A generator that holds connections (a model server's HTTP pool): close it when done."""

    async def aclose(self) -> None: ...


@runtime_checkable
class StreamingGenerator(Generator, Protocol):
    """A Generator that can also hand over its output text while the model writes it."""

    async def stream(
        self, request: GenerationRequest, on_text: Callable[[str], None]
    ) -> Generation:
        """As `generate`, calling `on_text` with each piece of the response text as it arrives
        (synchronously, in order; it must not block). The returned Generation, parsed and
        validated from the whole text, is what counts; a failure raises GenerationError, maybe
        after some text was handed over."""
        ...


@runtime_checkable
class PacketReader(Protocol):
    """A generator that reads its evidence in code, not in a model's prompt: the pipeline packs
    it the wider packet it declares (`PacketSize.widen` of the configured policy and hits)."""

    @property
    def packet_size(self) -> PacketSize: ...
