"""Fixtures for the Slack app tests: a docbot.yml over the small corpus in tests/bot/corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from retrieval.config import Config, load_config

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
