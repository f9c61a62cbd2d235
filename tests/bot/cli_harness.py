"""The pieces `docbot` command tests share: a handbook indexed through the real CLI, and the
fake OpenAI-compatible server the real `openai` client is pointed at through its environment."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.cli import main
from tests.grounding.fake_openai import FakeOpenAI, fake_in_thread

ROLLBACK = "To roll back a deploy, run `deployctl rollback --to PREVIOUS`."
ROLLBACK_PAGE = {"deploy.md": f"# Rollback\n\n{ROLLBACK}\n"}


def indexed_handbook(
    folder: Path, config_text: str, docs: Mapping[str, str],
    capsys: pytest.CaptureFixture[str] | None = None,
) -> Path:  # fmt: skip
    """Writes `docs` into folder/handbook and `config_text` beside it, runs `docbot index` on
    them, and returns the config's path; with `capsys`, the index's output is read off, so the
    test reads only its own command's."""
    handbook = folder / "handbook"
    handbook.mkdir()
    for name, text in docs.items():
        (handbook / name).write_text(text, encoding="utf-8")
    config = folder / "docbot.yml"
    config.write_text(config_text, encoding="utf-8")
    assert main(["index", "--config", str(config)]) == 0
    if capsys is not None:
        capsys.readouterr()
    return config


@contextmanager
def model_server_env(
    monkeypatch: pytest.MonkeyPatch, *, api_key: str = "sk-test-not-a-real-key"
) -> Iterator[FakeOpenAI]:
    """The fake model server on 127.0.0.1, with OPENAI_BASE_URL and OPENAI_API_KEY naming it."""
    with fake_in_thread() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", api_key)
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        yield fake
