"""Claims verified one at a time while the model writes its response, each reported the moment it
passed: what is reported is final, never taken back, so a live reply can show it at once.

The rules are verify()'s, claim by claim (grounding/verification/response.py check_claim), plus
what streaming adds: a claim is checked only once the response's status says `answered` (a claim
next to `insufficient_context` is never shown); source numbers are given in order of first use
and never change; and after a regeneration (unknown ids or quotes, as in the batch path) the
claims already shown stay, and the new response only adds the claims it verifies that are not
already shown. Nothing unverified is reported, and nothing reported is later retracted.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from grounding.answer import AnswerStatus, Claim, DroppedClaim
from grounding.evidence import EvidencePacket
from grounding.incremental import ClaimSeen, ResponseReader, StatusSeen
from grounding.progress import Checking, Report, Verified
from grounding.schema import GroundedClaim, GroundedResponse
from grounding.verification import Verification
from grounding.verification.response import Kept, Numbering, check_claim, not_found_reason
from retrieval.chunks import Chunk
from retrieval.text import normalize_text


class StreamedClaims:
    """The claims of one answer, over its first generation and its regeneration if any."""

    def __init__(
        self, packet: EvidencePacket, url_for: Callable[[Chunk], str | None], report: Report
    ) -> None:
        self._packet = packet
        self._url_for = url_for
        self._report = report
        self._numbering = Numbering(url_for)
        self._shown: set[str] = set()
        self._kept: list[Kept] = []  # what check_claim reads later claims after
        self.claims: list[Claim] = []
        self.dropped: list[DroppedClaim] = []
        self.checked = 0
        self.verify_seconds = 0.0

    def feed(self) -> ResponseFeed:
        """The `on_text` for one generation."""
        return ResponseFeed(self)

    def check(self, claim: GroundedClaim) -> None:
        started = time.perf_counter()
        self.checked += 1
        self._report(Checking(self.checked))
        checked = check_claim(claim, self._packet, self._kept)
        if isinstance(checked, Kept):
            self._kept.append(checked)
            key = _same_text(checked.text)
            if key not in self._shown:  # a regeneration restating a claim already shown
                self._shown.add(key)
                numbered, new_sources = self._numbering.number(checked)
                self.claims.append(numbered)
                self._report(Verified(numbered, new_sources))
        elif checked not in self.dropped:
            self.dropped.append(checked)
        self.verify_seconds += time.perf_counter() - started

    def result(self, last: GroundedResponse) -> Verification:
        """The answer's verification: the claims shown, or, when none was, the last response's
        not-found reason (the batch verdict's), with every claim dropped on the way."""
        if self.claims:
            return Verification(
                AnswerStatus.ANSWERED,
                tuple(self.claims),
                tuple(self._numbering.sources),
                tuple(self.dropped),
                None,
            )
        # No claim was kept, so each of the last response's was dropped: only the reason is left
        # to choose, without checking its claims a second time.
        reason = not_found_reason(last)
        return Verification(AnswerStatus.NOT_FOUND, (), (), tuple(self.dropped), reason)


class ResponseFeed:
    """Reads one generation's text as it comes; checks each claim once the status allows."""

    def __init__(self, claims: StreamedClaims) -> None:
        self._claims = claims
        self._reader = ResponseReader()
        self._status: str | None = None
        self._pending: list[GroundedClaim] = []  # complete before the status was read
        self._taken: list[GroundedClaim] = []

    def __call__(self, text: str) -> None:
        for item in self._reader.feed(text):
            if isinstance(item, StatusSeen):
                self._status_is(item.status)
            elif isinstance(item, ClaimSeen) and item.claim is not None:
                self._take(item.claim)

    def finish(self, response: GroundedResponse) -> None:
        """The whole response, validated: anything the reader had not reached is checked now."""
        if self._status is None:
            self._status_is(response.status)
        for claim in response.claims:
            if claim not in self._taken:
                self._take(claim)

    def _status_is(self, status: str) -> None:
        self._status = status
        pending, self._pending = self._pending, []
        for claim in pending:
            self._taken.remove(claim)
            self._take(claim)

    def _take(self, claim: GroundedClaim) -> None:
        self._taken.append(claim)
        if self._status is None:
            self._pending.append(claim)
        elif self._status == "answered":
            self._claims.check(claim)
        # any other status shows no claims (verify() agrees: insufficient means none)


def _same_text(text: str) -> str:
    return " ".join(normalize_text(text).casefold().split())
