"""Access scopes: which collections one conversation may read. The only way into the index."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from retrieval.config import Config


class ConversationKind(StrEnum):
    CHANNEL = "channel"
    PRIVATE = "private_channel"
    DM = "dm"
    EXTERNAL = "external"  # Slack Connect: shared with another organisation
    UNKNOWN = "unknown"  # the channel's properties could not be read


@dataclass(frozen=True, slots=True)
class Scope:
    team_id: str
    channel_id: str
    kind: ConversationKind
    collections: tuple[str, ...]  # sorted, unique

    @property
    def is_empty(self) -> bool:
        return not self.collections

    def to_dict(self) -> dict[str, object]:
        return {
            "team": self.team_id,
            "channel": self.channel_id,
            "kind": self.kind.value,
            "collections": list(self.collections),
        }


def resolve_scope(config: Config, team_id: str, channel_id: str, kind: ConversationKind) -> Scope:
    """Apply design.md's rules; everything unknown or unverifiable fails closed."""
    return Scope(team_id, channel_id, kind, _collections(config, team_id, channel_id, kind))


def _collections(
    config: Config, team_id: str, channel_id: str, kind: ConversationKind
) -> tuple[str, ...]:
    if team_id not in config.teams:
        return ()
    public = tuple(c.name for c in config.collections if c.access == "public")
    private = tuple(
        c.name for c in config.collections if c.access == "private" and channel_id in c.channels
    )
    match kind:
        case ConversationKind.DM:
            names = public if config.conversations.dm == "public" else ()
        case ConversationKind.EXTERNAL:
            names = public if config.conversations.external == "public" else ()
        case ConversationKind.UNKNOWN:
            # Unverifiable: it might be shared outside the org. A channel that the config
            # gives private access gets nothing rather than a misleadingly partial answer.
            names = () if private else public
        case ConversationKind.CHANNEL | ConversationKind.PRIVATE:
            names = public + private
    return tuple(sorted(set(names)))
