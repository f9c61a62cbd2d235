"""Fixtures for the Slack app tests: a docbot.yml over the small corpus in tests/bot/corpus."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.listeners import Answerer
from bot.runtime import make_pipeline
from bot.store import SQLiteAnswerStore
from grounding.generators.extractive import ExtractiveGenerator
from retrieval.config import Config, load_config
from retrieval.index import Index, build_index

# The store tests' fixtures, for end-to-end tests that run on every store backend as well.
from tests.bot.store.conftest import backend, clock  # noqa: F401

CORPUS = Path(__file__).resolve().parent / "corpus"
TEAM = "T0DOCBOT"
PAYMENTS_CHANNEL = "C0PAYMENTS"
CANARY = "marmalade-quasar-7731"


def write_config(folder: Path, *, external: str = "none") -> Path:
    path = folder / "docbot.yml"
    path.write_text(
        f"""\
state_dir: {folder / "state"}
teams: [{TEAM}]
collections:
  - name: handbook
    path: {CORPUS / "handbook"}
    url: "https://git.example.com/handbook/blob/main/{{path}}#L{{start}}-L{{end}}"
  - name: payments
    path: {CORPUS / "payments"}
    access: private
    channels: [{PAYMENTS_CHANNEL}]
    url: "https://git.example.com/payments/blob/main/{{path}}#L{{start}}-L{{end}}"
conversations:
  dm: public
  external: {external}
answer:
  generator: extractive
""",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return load_config(write_config(tmp_path))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SQLiteAnswerStore]:
    """An empty answer store in this test's folder."""
    store = SQLiteAnswerStore(tmp_path / "answers.sqlite3")
    yield store
    store.close()


@pytest.fixture(scope="session")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Config, Answerer]:
    """The corpus indexed once per run, and the real pipeline over it (read-only: tests that
    change documents or the index build their own)."""
    config = load_config(write_config(tmp_path_factory.mktemp("e2e")))
    build_index(config)
    return config, make_pipeline(config, Index.load(config), ExtractiveGenerator())
