"""How OpenAIGenerator reads a well-formed reply: the final answer, refusals, truncation, schema."""

from __future__ import annotations

import pytest

from tests.grounding.fake_openai import answer, narrated, raw_text, refusal, truncated
from tests.grounding.openai_harness import API, APIS, error, generation, serve

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])


def test_generate_reads_only_the_final_answer_after_commentary() -> None:
    outcome, _ = serve("responses", narrated("Looking at the timeouts page first.", GOOD))
    assert generation(outcome).response.claims[0].text == "Timeouts default to five seconds."


@pytest.mark.parametrize("api", APIS)
def test_generate_refusal_is_a_refusal_error(api: API) -> None:
    outcome, _ = serve(api, refusal("I can't help with that."))
    failure = error(outcome)
    assert failure.kind == "refusal"
    # The refusal is model text that may quote the evidence, and the message is logged.
    assert "help with that" not in str(failure) and "refused" in str(failure)


@pytest.mark.parametrize("api", APIS)
def test_generate_truncated_reply_is_incomplete_not_invalid(api: API) -> None:
    outcome, _ = serve(api, truncated())
    failure = error(outcome)
    assert failure.kind == "incomplete"
    assert "max_output_tokens" in str(failure)


@pytest.mark.parametrize("api", APIS)
def test_generate_malformed_json_is_invalid(api: API) -> None:
    outcome, _ = serve(api, raw_text('Sure! {"status": "answered", claims: [}'))
    failure = error(outcome)
    assert failure.kind == "invalid"
    assert "GroundedResponse" in str(failure)


@pytest.mark.parametrize("api", APIS)
def test_generate_json_of_the_wrong_shape_is_invalid(api: API) -> None:
    outcome, _ = serve(api, raw_text('{"status": "maybe", "claims": [], "message": ""}'))
    failure = error(outcome)
    assert failure.kind == "invalid"
    assert "status" in str(failure)


@pytest.mark.parametrize("api", APIS)
def test_generate_empty_output_is_invalid(api: API) -> None:
    outcome, _ = serve(api, raw_text(""))
    assert error(outcome).kind == "invalid"
