"""A question longer than docbot answers is a bad line of the set, named before anything is asked.

Before, the questions above it were asked (a model's tokens spent), then the run stopped on the
long one with the message `docbot ask` gives, naming no line, and printed no figures.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from retrieval.query import MAX_QUESTION_CHARS
from tests.bot.cli_harness import model_server_env
from tests.bot.test_cli_eval import ROLLBACK, _eval, _set, config  # noqa: F401
from tests.grounding.fake_openai import FakeOpenAI, answer


@pytest.fixture
def model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with model_server_env(monkeypatch) as fake:
        fake.always("responses", answer([("Run `deployctl rollback`.", ["E1"])]))
        yield fake


def test_eval_overlong_question_is_a_bad_line_and_nothing_is_asked(
    config: Path,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model_server: FakeOpenAI,
) -> None:
    long = {"question": "why " * (MAX_QUESTION_CHARS // 4 + 1), "answerable": False}
    questions = _set(tmp_path, ROLLBACK, long)
    code, out, err = _eval(capsys, config, questions)
    assert code == 2
    assert model_server.requests == []
    assert out == ""
    assert "1 bad line(s) in the question set; nothing was run" in err
    assert f"{questions}:2: `question` is {MAX_QUESTION_CHARS + 3:,} characters long" in err
    assert f"at most {MAX_QUESTION_CHARS:,}" in err
