"""What a user reads when verification leaves nothing to show: the words are fixed here, never
the model's own (its message is unverified free text)."""

from __future__ import annotations

from grounding.evidence import EvidencePacket


def not_answered_message(packet: EvidencePacket) -> str:
    return (
        f"The documentation this conversation can read ({_collections(packet)}) does not "
        "answer this question."
    )


def no_claims_message(packet: EvidencePacket) -> str:
    return (
        f"I found passages in {_collections(packet)}, but the answer made no statement citing "
        "them, so there is nothing verified to show."
    )


def unverified_message(packet: EvidencePacket, dropped: int) -> str:
    statements = "statement" if dropped == 1 else "statements"
    return (
        f"I found passages in {_collections(packet)}, but could not verify an answer against "
        f"them ({dropped} {statements} did not match the cited text), so none is shown."
    )


def _collections(packet: EvidencePacket) -> str:
    return ", ".join(packet.scope.collections) or "no collections"
