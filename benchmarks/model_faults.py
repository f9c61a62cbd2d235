"""How long the asker waits when the model server misbehaves, and how many calls docbot makes.

The real AnswerPipeline and OpenAIGenerator, on the real clock, against the fake OpenAI server on
127.0.0.1 (hanging, trickling, garbage, rate limited, failing). The limits are scaled down so the
run stays short: answer.timeout_seconds 2, answer.deadline_seconds 3, answer.max_retries 2; with
the defaults (30, 45, 2) the waits scale the same way. Prints one row per scenario.

    python -m benchmarks.model_faults [--timeout 2] [--deadline 3] [--retries 2]   (from the
    repo root: it borrows the test suite's fake OpenAI server, so it runs as a module)
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import time
from dataclasses import dataclass

from grounding.evidence import PackPolicy
from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client
from grounding.pipeline import AnswerPipeline
from retrieval.scopes import ConversationKind, Scope
from tests.grounding.fake_openai import (
    FakeOpenAI,
    Reply,
    answer,
    hang,
    http_error,
    json_body,
    raw_body,
    trickle,
)
from tests.grounding.fakes import FakeRetriever, WordCounter
from tests.grounding.openai_harness import CLIENTS, QUESTION, TIMEOUTS

GOOD = answer([("Timeouts default to five seconds.", ["E1"])])
SCENARIOS: dict[str, Reply] = {
    "answers": GOOD,
    "hangs": hang(),
    "trickles a body that never ends": trickle(),
    "200 with an HTML page": raw_body("<html>502 Bad Gateway</html>", content_type="text/html"),
    "200 with JSON of another shape": json_body({"id": "resp_1", "object": "response"}),
    "429 forever, Retry-After: 1": http_error(429, headers=(("retry-after", "1"),)),
    "429 forever, Retry-After: 60": http_error(429, headers=(("retry-after", "60"),)),
    "503 forever, no Retry-After": http_error(503, headers=()),
    "401 bad key": http_error(401, "Incorrect API key provided"),
}


# The pipeline logs each failure; the table says it all.
_QUIET = logging.getLogger("benchmarks.model_faults")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


@dataclass(frozen=True)
class Outcome:
    status: str
    kind: str
    calls: int
    seconds: float


async def measure(reply: Reply, timeout: float, deadline: float, retries: int) -> Outcome:
    async with FakeOpenAI() as fake:
        fake.always("responses", reply)
        client = make_openai_client("sk-bench", fake.base_url)
        pipeline = AnswerPipeline(
            FakeRetriever([TIMEOUTS, CLIENTS]),
            OpenAIGenerator(client, "gpt-bench", timeout_seconds=timeout, max_retries=retries),
            WordCounter(),
            PackPolicy(),
            lambda chunk: None,
            logger=_QUIET,
            deadline_seconds=deadline,
        )
        scope = Scope("T1", "C1", ConversationKind.CHANNEL, ("httpx",))
        started = time.perf_counter()
        try:
            result = await pipeline.answer(QUESTION, scope)
        finally:
            await client.close()
        seconds = time.perf_counter() - started
        kind = result.error_detail.split(":", 1)[0] if result.error_detail else "-"
        return Outcome(result.status.value, kind, len(fake.requests), seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=2.0, help="answer.timeout_seconds")
    parser.add_argument("--deadline", type=float, default=3.0, help="answer.deadline_seconds")
    parser.add_argument("--retries", type=int, default=2, help="answer.max_retries")
    args = parser.parse_args()
    print(
        f"timeout_seconds={args.timeout:g} deadline_seconds={args.deadline:g} "
        f"max_retries={args.retries}"
    )
    print(f"{'the model server':34} {'status':9} {'kind':13} {'calls':>5} {'waited s':>9}")
    for name, reply in SCENARIOS.items():
        outcome = asyncio.run(measure(reply, args.timeout, args.deadline, args.retries))
        print(
            f"{name:34} {outcome.status:9} {outcome.kind:13} {outcome.calls:5d} "
            f"{outcome.seconds:9.2f}"
        )


if __name__ == "__main__":
    main()
