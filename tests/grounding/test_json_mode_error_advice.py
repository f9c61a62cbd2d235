"""What a JSON-mode reply that never validates tells the admin: advice that fits JSON mode.

With `response_format: json_object` (set, or found by `auto`), "set answer.response_format to
auto or json_object" is no advice at all: it is already so. The error says the one retry was
made and what could help; the retry note sent to the model names the problem, not docbot's
settings.
"""

from __future__ import annotations

import pytest

from grounding.generators.response_formats import FormatMemory
from tests.grounding.fake_local_servers import without_json_schema
from tests.grounding.fake_openai import raw_text
from tests.grounding.openai_harness import error
from tests.grounding.test_local_servers import run

PROSE = raw_text("I think the timeout is five seconds.")


@pytest.mark.parametrize("setting", ["json_object", "auto"])
def test_json_mode_failure_does_not_advise_the_setting_already_in_use(setting: str) -> None:
    respond = without_json_schema("llama.cpp") if setting == "auto" else None
    (outcome,), fake = run(
        "chat", respond, PROSE, PROSE, response_format=setting, memory=FormatMemory()
    )
    detail = str(error(outcome))
    assert error(outcome).kind == "invalid"
    assert "set answer.response_format to auto or json_object" not in detail
    assert "asked once more" in detail and "answer.model" in detail
    retry_note = fake.requests[-1].body["messages"][-1]["content"]
    assert "answer.response_format" not in retry_note


def test_strict_schema_failure_still_advises_json_mode() -> None:
    (outcome,), _ = run("chat", None, PROSE, response_format="json_schema")
    assert "set answer.response_format to auto or json_object" in str(error(outcome))
