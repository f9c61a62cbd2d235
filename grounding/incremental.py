"""Reading a GroundedResponse while the model is still writing it: the status as soon as its string
ends, and each claim as soon as its JSON object closes, so it can be verified (and shown) before
the rest of the answer exists.

Pure: text in, values out. It only finds what is complete; the whole response is still parsed
and validated at the end (grounding/generators), and that parse is the one that counts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pydantic

from grounding.schema import GroundedClaim


@dataclass(frozen=True, slots=True)
class StatusSeen:
    status: str


@dataclass(frozen=True, slots=True)
class ClaimSeen:
    index: int  # position in the claims array
    claim: GroundedClaim | None  # None: the object is complete but is not a valid claim


Seen = StatusSeen | ClaimSeen


class ResponseReader:
    """Feed it the response text in pieces, as they arrive; each `feed` returns what completed.

    A small state machine over the characters (strings and their escapes, nesting depth), which
    tracks the top-level key being read: `status`'s string value, and each object directly in
    `claims`' array. Keys may come in any order; nothing else is interpreted."""

    def __init__(self) -> None:
        self._text = ""
        self._at = 0  # next character to scan
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._string_start = 0
        self._last_string: str | None = None  # the last top-level string, until ':' or ','
        self._key: str | None = None  # the top-level key whose value is being read
        self._in_claims = False
        self._claim_start: int | None = None
        self._claims = 0

    def feed(self, piece: str) -> list[Seen]:
        self._text += piece
        seen: list[Seen] = []
        while self._at < len(self._text):
            char = self._text[self._at]
            if self._in_string:
                self._string_char(char, seen)
            else:
                self._structural(char, seen)
            self._at += 1
        return seen

    def _string_char(self, char: str, seen: list[Seen]) -> None:
        if self._escaped:
            self._escaped = False
        elif char == "\\":
            self._escaped = True
        elif char == '"':
            self._in_string = False
            if self._depth == 1:
                value = json.loads(self._text[self._string_start : self._at + 1])
                if self._key == "status" and isinstance(value, str):
                    seen.append(StatusSeen(value))
                    self._key = None
                else:
                    self._last_string = value

    def _structural(self, char: str, seen: list[Seen]) -> None:
        if char == '"':
            self._in_string = True
            self._string_start = self._at
        elif char == ":" and self._depth == 1:
            self._key, self._last_string = self._last_string, None
        elif char == "," and self._depth == 1:
            self._key = None
        elif char in "{[":
            if char == "[" and self._depth == 1 and self._key == "claims":
                self._in_claims = True
            elif char == "{" and self._in_claims and self._depth == 2:
                self._claim_start = self._at
            self._depth += 1
        elif char in "}]":
            self._depth -= 1
            if char == "}" and self._in_claims and self._depth == 2:
                seen.append(self._claim())
            elif char == "]" and self._in_claims and self._depth == 1:
                self._in_claims = False

    def _claim(self) -> ClaimSeen:
        assert self._claim_start is not None
        raw = self._text[self._claim_start : self._at + 1]
        self._claim_start = None
        index, self._claims = self._claims, self._claims + 1
        try:
            return ClaimSeen(index, GroundedClaim.model_validate_json(raw))
        except pydantic.ValidationError:
            return ClaimSeen(index, None)
