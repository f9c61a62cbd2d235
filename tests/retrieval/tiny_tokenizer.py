"""Test helper: a tokenizer file of the one shape retrieval/query_tokens.py repeats, small enough
that its tables can be damaged at every byte."""

from __future__ import annotations

import json
from pathlib import Path

_VOCAB = {"▁": 0, "a": 1, "b": 2, "ab": 3, "▁ab": 4, "<0x41>": 5, "<0xC3>": 6, "<0xA9>": 7}


def tiny_tokenizer(folder: Path) -> Path:
    """Write the tokenizer JSON to `folder` and return its path."""
    spec = {
        "added_tokens": [{"content": "<s>"}],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"},
            ],
        },
        "pre_tokenizer": None,
        "model": {
            "type": "BPE",
            "byte_fallback": True,
            "dropout": None,
            "vocab": _VOCAB,
            "merges": ["a b", "▁ ab"],
        },
    }
    path = folder / "tokenizer.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path
