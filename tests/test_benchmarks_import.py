"""Every script in benchmarks/ and training/ still imports: they reuse the tests' fakes and the
project's modules, and a rename there (free_port moving to tests/ports.py) must fail here, not
months later when someone reruns a figure. Importing runs no benchmark: each is a `main()`."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(
    f"{folder}.{path.stem}"
    for folder in ("benchmarks", "training")
    for path in (ROOT / folder).glob("*.py")
    if path.stem != "__init__"
)


@pytest.mark.parametrize("name", MODULES)
def test_the_script_imports(name: str) -> None:
    importlib.import_module(name)
