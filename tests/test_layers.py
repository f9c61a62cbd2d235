"""The dependency direction bot -> grounding -> retrieval, checked on every import in the tree."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> top-level modules it must never import (design.md, "The pipeline")
FORBIDDEN = {
    "retrieval": {"grounding", "bot", "slack_bolt", "slack_sdk", "openai"},
    "grounding": {"bot", "slack_bolt", "slack_sdk"},
}
# The SDK's calls, and the translation of its exceptions.
OPENAI_ONLY_IN = {
    ROOT / "grounding" / "generators" / name
    for name in ("openai_gen.py", "openai_client.py", "openai_errors.py")
}


# Each module is parsed once per process: every test below asks about the same files.
@functools.cache
def _imports(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return frozenset(names)


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layers_package_never_imports_upwards(package: str) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & FORBIDDEN[package])
        for path in _modules(package)
        if _imports(path) & FORBIDDEN[package]
    }
    assert offenders == {}


def test_layers_only_the_openai_generator_imports_openai() -> None:
    users = [
        str(path.relative_to(ROOT))
        for package in ("retrieval", "grounding", "bot")
        for path in _modules(package)
        if "openai" in _imports(path) and path not in OPENAI_ONLY_IN
    ]
    assert users == []


def test_layers_checker_sees_imports() -> None:
    # Guards the guard: the parser must find the imports it is meant to police.
    assert {"retrieval", "grounding"} <= _imports(ROOT / "bot" / "runtime.py")
    assert "retrieval" in _imports(ROOT / "grounding" / "answer.py")
