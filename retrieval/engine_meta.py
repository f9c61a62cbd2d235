"""What every persisted engine folder shares: its `engine.json` and the top-k cut."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import numpy.typing as npt

from retrieval.errors import IndexNotBuiltError, IndexOutdatedError, other_version

META = "engine.json"
# 2: engine.json also records the bm25 term and posting counts, checked at open.
# 3: a tantivy engine is made of parts (one per collection), listed in engine.json.
ENGINE_FORMAT = 3


def write_meta(directory: Path, engine: str, documents: int, **extra: object) -> None:
    meta = {"format": ENGINE_FORMAT, "engine": engine, "documents": documents, **extra}
    (directory / META).write_text(json.dumps(meta), encoding="utf-8")


def read_meta(directory: Path) -> dict[str, object]:
    """The folder's engine.json, if this docbot version wrote it; else IndexNotBuiltError."""
    try:
        meta = json.loads((directory / META).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexNotBuiltError(f"{directory}: no readable search engine ({exc})") from exc
    if not isinstance(meta, dict):
        raise IndexNotBuiltError(f"{directory}: {META} is not an engine's description")
    found = meta.get("format")
    if found != ENGINE_FORMAT:
        raise IndexOutdatedError(
            f"{directory} was written by {other_version(found, ENGINE_FORMAT)}, incompatible "
            f"docbot version (engine format {found!r}; this docbot's is {ENGINE_FORMAT})"
        )
    return meta


def meta_count(meta: dict[str, object], key: str, directory: Path) -> int:
    value = meta.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise IndexNotBuiltError(f"{directory}: {META} holds no {key} count (found {value!r})")
    return value


def best_first(
    positions: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], k: int
) -> list[tuple[int, float]]:
    """The top k of positive scores, best first, equal scores in position order."""
    keep = scores > 0
    positions, scores = positions[keep], scores[keep]
    if len(scores) > k:
        # Every score tied with the k-th survives the cut, so ties resolve by position.
        threshold = np.partition(scores, len(scores) - k)[len(scores) - k]
        keep = scores >= threshold
        positions, scores = positions[keep], scores[keep]
    order = np.lexsort((positions, -scores))[:k]
    return [(int(positions[i]), float(scores[i])) for i in order]
