"""The README's sample answer is what `docbot ask` really prints on the bundled demo."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from bot.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = re.compile(
    r"^````text\n\$ docbot ask \"(?P<q>[^\"]+)\" --channel (?P<c>\S+)\n(?P<out>.*?)^````$",
    re.MULTILINE | re.DOTALL,
)
DATE = re.compile(r"updated \d{4}-\d{2}-\d{2}")  # git date or mtime: depends on the checkout


def test_readme_sample_answer_is_real(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    match = SAMPLE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert match, "README.md has no ````text sample of `docbot ask`"
    demo = yaml.safe_load((ROOT / "docbot.yml").read_text(encoding="utf-8"))
    demo["state_dir"] = str(tmp_path / "state")  # never write into the checkout
    for collection in demo["collections"]:
        collection["path"] = str(ROOT / collection["path"])
    config = tmp_path / "docbot.yml"
    config.write_text(yaml.safe_dump(demo), encoding="utf-8")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["index", "--config", str(config)]) == 0
    capsys.readouterr()
    assert main(["ask", match["q"], "--channel", match["c"], "--config", str(config)]) == 0
    printed = capsys.readouterr().out
    assert DATE.sub("updated D", printed) == DATE.sub("updated D", match["out"])
