"""Test helper: a folder of small documentation collections and the docbot.yml that names them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from retrieval.config import Config, load_config
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope

# Each section holds at least a quarter of the tests' 60-token budget (counted in words), so
# the chunker keeps it a chunk of its own instead of merging it with its neighbours.
PUBLIC_DOCS = {
    "deploy.md": (
        "# Deploy\n\nShip every service with the release tool, which builds, tags and pushes "
        "one image per commit.\n\n"
        "## Rollback\n\nPick the previous build in the release tool and confirm the rollback.\n\n"
        "## Migrations\n\nDatabase migrations run before the deploy starts; a failed migration "
        "stops the deploy at once.\n"
    ),
    "oncall.md": "# On-call\n\nThe rota lives in PagerDuty; swap shifts with an override.\n",
    "http/clients.md": (
        "# Clients\n\nUse `httpx.Client(follow_redirects=True)` to follow redirects; the client "
        "keeps one connection pool for all its requests.\n\n"
        "## Timeouts\n\nA ReadTimeout is raised after five seconds of silence from the server, "
        "unless the client sets another limit.\n"
    ),
}
SECRET_DOCS = {
    "keys.md": (
        "# Payments keys\n\nRotate the payments API key in the vault every ninety days.\n\n"
        "## Rollback of a key\n\nA rollback of the payments key restores the previous key; "
        "rollback rollback deploy release tool.\n"
    ),
}


class WordCounter:
    """Counts words: chunk sizes in tests need no tokenizer download."""

    def count(self, text: str) -> int:
        return len(text.split())


def write_tree(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_config(
    base: Path,
    collections: list[dict[str, object]],
    search: Mapping[str, object] | None = None,
    state: str = ".docbot",
) -> Config:
    """Write `docbot-<state>.yml` in `base` and load it as the CLI would."""
    raw: dict[str, object] = {"state_dir": state, "teams": ["T1"], "collections": collections}
    if search:
        raw["search"] = dict(search)
    path = base / f"docbot-{state.strip('.')}.yml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return load_config(path)


def public_and_secret(
    base: Path, engine: str = "auto", with_secret: bool = True, state: str = ".docbot"
) -> Config:
    """`handbook` (public) and, if asked, `payments` (private to channel CPAY)."""
    write_tree(base / "handbook", PUBLIC_DOCS)
    collections: list[dict[str, object]] = [{"name": "handbook", "path": "handbook"}]
    if with_secret:
        write_tree(base / "payments", SECRET_DOCS)
        collections.append(
            {"name": "payments", "path": "payments", "access": "private", "channels": ["CPAY"]}
        )
    return write_config(base, collections, {"engine": engine, "chunk_tokens": 60}, state)


def public_and_secret_results(
    config: Config, queries: Sequence[str]
) -> list[list[tuple[str, int, float]]]:
    """Each query's top 5 (path, start line, score) from a fresh load, in the public channel
    and then in CPAY: what two builds of `public_and_secret` files compare."""
    index = Index.load(config)
    found = []
    for channel in ("CPUB", "CPAY"):
        scope = resolve_scope(config, "T1", channel, ConversationKind.CHANNEL)
        for query in queries:
            hits = index.search(query, scope, 5)
            found.append([(h.chunk.path, h.chunk.start_line, h.score) for h in hits])
    return found
