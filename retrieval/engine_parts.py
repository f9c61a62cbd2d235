"""Each collection's tantivy part (retrieval/tantivy_engine.py), kept between builds.

A part lives in `engines/part-<key>/`, its key naming the collection's content (paths and
bytes) and everything that decides what is indexed, so a part is reused exactly when it would
come out the same. The manifest's `parts` list records each one's files with size and sha256,
like the sets' engines; a part is checked against it before a set is composed from it, and a
damaged or missing one is built again. Loading never reads parts: the sets' folders hold
their own links to the segment files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from retrieval.collections import CollectionSnapshot
from retrieval.engine_meta import ENGINE_FORMAT
from retrieval.engines import SCORING_VERSION
from retrieval.manifest import (
    FORMAT,
    TOKENIZER_VERSION,
    FillEngine,
    build_engine_dir,
    fingerprint,
    reusable_engine,
)
from retrieval.tantivy_engine import build_part, part_id


def part_key(name: str, snapshot: CollectionSnapshot) -> str:
    parts = [f"{FORMAT}", TOKENIZER_VERSION, SCORING_VERSION, f"{ENGINE_FORMAT}", name]
    parts.append(fingerprint(snapshot, with_dates=False))
    return f"part-{hashlib.sha256(chr(0).join(parts).encode()).hexdigest()[:24]}"


class Parts:
    """The parts a build composes its tantivy sets from: the last build's where still intact,
    the others built (once each) from `documents(name)`, the collection's joined tokens."""

    def __init__(
        self,
        root: Path,
        snapshots: Mapping[str, CollectionSnapshot],
        previous: Mapping[str, Mapping[str, Any]],
        documents: Callable[[str], Sequence[str]],
    ) -> None:
        self._engines = root / "engines"
        self._snapshots = snapshots
        self._previous = previous  # part key -> the last manifest's entry
        self._documents = documents
        self._ready: dict[str, dict[str, Any]] = {}  # collection -> entry, checked this build
        self.built = 0

    def folder(self, name: str) -> Path:
        """Collection `name`'s part folder, intact on disk (reused or built now)."""
        key = part_key(name, self._snapshots[name])
        target = self._engines / key
        if name not in self._ready:
            files = reusable_engine(target, self._previous.get(key))
            if files is None:
                files = build_engine_dir(target, self._builder(name))
                self.built += 1
            self._ready[name] = {"collection": name, "key": key, "files": files}
        return target

    def files(self, name: str) -> dict[str, list[int | str]]:
        """The recorded files of collection `name`'s part (checked or built by `folder`)."""
        files: dict[str, list[int | str]] = self._ready[name]["files"]
        return files

    def _builder(self, name: str) -> FillEngine:
        part, documents = part_id(name), self._documents(name)

        def build(folder: Path) -> dict[str, list[int | str]]:
            build_part(folder, part, documents)
            return {}  # it links no file

        return build

    def entries(self) -> list[dict[str, Any]]:
        """The manifest's `parts`: those used this build, and the last build's that are still
        current (their files are checked when a later build uses them)."""
        found = dict(self._ready)
        for name, snapshot in self._snapshots.items():
            key = part_key(name, snapshot)
            kept = self._previous.get(key)
            if name not in found and kept is not None and (self._engines / key).is_dir():
                found[name] = dict(kept)
        return [found[name] for name in sorted(found)]
