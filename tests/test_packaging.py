"""The installed package holds every module: a wheel built from pyproject.toml must contain each
package folder of retrieval/, grounding/ and bot/ (an editable install hides a missing one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from setuptools import find_packages
from setuptools.config.pyprojecttoml import read_configuration

REPO = Path(__file__).resolve().parents[1]
TOP_LEVEL = ("retrieval", "grounding", "bot")
# setuptools calls its pyproject reader beta; reading our own file is all these tests do.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _configured_packages() -> set[str]:
    tool = read_configuration(REPO / "pyproject.toml")["tool"]["setuptools"]
    packages = tool.get("packages", [])
    if isinstance(packages, dict):  # `packages.find`: what setuptools will really find
        find = packages["find"]
        return set(find_packages(str(REPO), include=find.get("include", ["*"])))
    return set(packages)


def test_packaging_includes_every_package_folder() -> None:
    folders = {
        ".".join(init.parent.relative_to(REPO).parts)
        for top in TOP_LEVEL
        for init in (REPO / top).rglob("__init__.py")
    }
    assert folders <= _configured_packages()


def test_packaging_ships_the_reader_weights() -> None:
    tool = read_configuration(REPO / "pyproject.toml")["tool"]["setuptools"]
    assert "reader_weights.json" in tool["package-data"]["grounding.generators"]
    assert (REPO / "grounding" / "generators" / "reader_weights.json").is_file()


def test_packaging_ships_the_gate_thresholds() -> None:
    tool = read_configuration(REPO / "pyproject.toml")["tool"]["setuptools"]
    assert "gate_thresholds.json" in tool["package-data"]["grounding"]
    assert (REPO / "grounding" / "gate_thresholds.json").is_file()
