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


# A reply the generator cannot use: which kind of failure it is, and what the message names.
UNUSABLE = {
    "truncated": (truncated(), "incomplete", ("max_output_tokens",)),
    "malformed json": (
        raw_text('Sure! {"status": "answered", claims: [}'),
        "invalid",
        ("GroundedResponse",),
    ),
    "wrong shape": (
        raw_text('{"status": "maybe", "claims": [], "message": ""}'),
        "invalid",
        ("status",),
    ),
    "empty": (raw_text(""), "invalid", ()),
}


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("case", UNUSABLE)
def test_generate_an_unusable_reply_is_a_failure_of_its_kind(api: API, case: str) -> None:
    reply, kind, mentions = UNUSABLE[case]
    # json_schema: under `auto` a first reply that ignores the schema switches to JSON mode
    # (tests/grounding/test_local_servers.py); here it is the reply itself that is judged.
    failure = error(serve(api, reply, response_format="json_schema")[0])
    assert failure.kind == kind
    for mention in mentions:
        assert mention in str(failure)
