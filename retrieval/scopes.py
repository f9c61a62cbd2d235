"""Access scopes: which collections one conversation may read. The only way into the index."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from retrieval.config import CollectionConfig, Config
from retrieval.errors import ConfigError


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


def narrow_scope(scope: Scope, limit: Scope) -> Scope:
    """`scope` keeping only the collections `limit` also grants: a hint that cannot be verified
    may take access away, never add it, so the kind (and what the reply says) stays `scope`'s."""
    allowed = set(limit.collections)
    kept = tuple(name for name in scope.collections if name in allowed)
    return Scope(scope.team_id, scope.channel_id, scope.kind, kept)


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
            # A DM's own ID listed in a private collection is an explicit grant.
            names = (public if config.conversations.dm == "public" else ()) + private
        case ConversationKind.EXTERNAL:
            names = public if config.conversations.external == "public" else ()
        case ConversationKind.UNKNOWN:
            # Unverifiable: it might be shared outside the org. A channel that the config
            # gives private access gets nothing rather than a misleadingly partial answer.
            names = () if private else public
        case ConversationKind.CHANNEL | ConversationKind.PRIVATE:
            names = public + private
    return tuple(sorted(set(names)))


def readers(collection: CollectionConfig) -> tuple[str, ...]:
    """Who may read a collection: ("public",) or the sorted channel IDs of a private one."""
    return ("public",) if collection.access == "public" else tuple(sorted(collection.channels))


def check_exclusive_files(config: Config, files: Mapping[str, Iterable[str]]) -> None:
    """Refuse a file that two collections with different readers both index.

    Folders may nest or coincide (a public `docs` holding a private `docs/payments`); a
    file indexed by both would then be readable wherever the wider collection is, so a
    private document would leak into every channel. `files` maps collection name to the
    paths indexed, relative to the collection's folder.
    """
    owner: dict[Path, CollectionConfig] = {}
    for collection in config.collections:
        for rel_path in files.get(collection.name, ()):
            absolute = collection.folder / rel_path
            first = owner.setdefault(absolute, collection)
            if first is not collection and readers(first) != readers(collection):
                raise ConfigError(_shared_file_message(first, collection, absolute))


def _shared_file_message(a: CollectionConfig, b: CollectionConfig, path: Path) -> str:
    return (
        f"{path} is indexed by both collection {a.name!r} ({a.access}) and collection "
        f"{b.name!r} ({b.access}), which have different readers: one collection's channels "
        f"would see the other's documents. Move the folder of one out of the other, or add "
        f'an `exclude` pattern to one of them (e.g. exclude: ["payments/**"]) so each '
        f"file belongs to one collection."
    )
