"""`docbot index` then `docbot ask --json` next to a document holding a 400-row table.

The table shares the question's words and ranked first as one 7,000-token chunk, more than the
whole evidence budget: the answer was not_found though a 58-byte file holds it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from tests.retrieval import oversized_docs as docs


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.usefixtures("offline")
def test_cli_ask_finds_the_small_file_next_to_a_huge_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handbook = tmp_path / "handbook"
    handbook.mkdir()
    (handbook / "queues.md").write_text(docs.markdown_table(), encoding="utf-8")
    for name, text in (docs.ANSWER_FILE, *docs.OTHER_FILES.items()):
        (handbook / name).write_text(text, encoding="utf-8")
    config = tmp_path / "docbot.yml"
    config.write_text(
        "teams: [T1]\ncollections:\n  - name: handbook\n    path: handbook\n", encoding="utf-8"
    )
    assert main(["index", "--config", str(config)]) == 0
    capsys.readouterr()

    code = main(["ask", docs.QUESTION, "--channel", "C0GEN", "--config", str(config), "--json"])
    result = json.loads(capsys.readouterr().out)

    assert code == 0
    assert result["status"] == "answered", result["message"]
    cited = {s["n"]: s["path"] for s in result["sources"]}
    assert any(
        "retry limit is 7" in claim["text"]
        and "webhooks.md" in {cited[n] for n in claim["citations"]}
        for claim in result["claims"]
    ), result["claims"]
