"""The extractive reader on handmade packets: what it quotes, when it refuses, how it reads.

These pin behaviour (question kinds, refusal, verbatim claims, determinism, non-English
questions), not named questions of a benchmark: answer quality is measured by
benchmarks/dev_questions.py on a split the weights were not fit on.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.base import Generation, GenerationRequest, Generator, Prompt
from grounding.generators.extractive import INSUFFICIENT_MESSAGE, ExtractiveGenerator
from grounding.generators.question import Kind, ask, language
from grounding.generators.reader_model import WEIGHTS, load_model
from grounding.generators.reading import QUESTION_FEATURES, UNIT_FEATURES
from grounding.verification import support_problem
from retrieval.chunks import Chunk, make_chunk_id, text_digest
from retrieval.errors import DocbotError
from retrieval.scopes import ConversationKind, Scope
from retrieval.text import normalize_text

SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("docs",))

TIMEOUTS = """\
## Timeouts

HTTPX is careful to enforce timeouts everywhere by default. The default behavior is to
raise a `TimeoutException` after 5 seconds of network inactivity.

You can set a timeout on a client instance, which results in the given
`timeout` being used as the default for requests made with this client:

```python
client = httpx.Client(timeout=10.0)  # Use a default 10s timeout everywhere.
client = httpx.Client(timeout=None)  # Disable all timeouts by default.
```
"""

COOKIES = """\
## Cookies

Any cookies that are set on the response can be easily accessed. To include cookies
in an outgoing request, use the `cookies` parameter. Cookies are returned in a
`Cookies` instance, which is a dict-like data structure.
"""

REDIRECTS = """\
## Redirection and History

By default, HTTPX will **not** follow redirects for all HTTP methods, although
this can be explicitly enabled.

- You can use the `follow_redirects` parameter to enable redirect following.
- The `history` property of the response can be used to inspect any followed redirects.
"""

ROLLBACK_ZH = """\
## 回滚部署

如果新版本上线后出现严重错误，值班工程师会回滚部署。
回滚部署时运行 `deploy rollback --to previous` 命令。
"""


def chunk(text: str, path: str = "guide.md", heading: str = "") -> Chunk:
    digest = text_digest(text)
    return Chunk(
        chunk_id=make_chunk_id("docs", path, digest, 0),
        collection="docs",
        path=path,
        heading_path=(heading,) if heading else (),
        start_line=1,
        end_line=text.count("\n") + 1,
        text=text,
        digest=digest,
        updated="2026-01-01",
    )


def packet(question: str, *chunks: Chunk) -> EvidencePacket:
    items = tuple(
        EvidenceItem(label=f"E{i}", chunk=c, score=10.0 - i) for i, c in enumerate(chunks, start=1)
    )
    return EvidencePacket(question, SCOPE, "gen-1", PackPolicy(), items, (), 0)


def generate(question: str, *chunks: Chunk, generator: Generator | None = None) -> Generation:
    request = GenerationRequest(packet(question, *chunks), Prompt("instructions", "input"))
    return asyncio.run((generator or ExtractiveGenerator()).generate(request))


def docs() -> tuple[Chunk, ...]:
    return (
        chunk(COOKIES, "cookies.md", "Cookies"),
        chunk(TIMEOUTS, "timeouts.md", "Timeouts"),
        chunk(REDIRECTS, "quickstart.md", "Redirection and History"),
    )


def test_reader_conforms_to_the_generator_protocol() -> None:
    generator: Generator = ExtractiveGenerator()
    assert generator.name == "extractive"


def test_reader_answers_a_default_value_question_with_the_value() -> None:
    response = generate("what is the default timeout?", *docs()).response
    assert response.status == "answered"
    assert any("5 seconds" in c.text for c in response.claims)
    assert response.claims[0].citations == ["E2"]  # the label of the chunk it quotes


def test_reader_claims_are_verbatim_and_pass_the_verifier() -> None:
    chunks = docs()
    for question in ("how do I set a timeout on a client?", "is redirect following on?"):
        response = generate(question, *chunks).response
        assert response.status == "answered", question
        for claim in response.claims:
            source = chunks[int(claim.citations[0][1:]) - 1].text
            assert normalize_text(claim.text) in normalize_text(source), claim.text
            assert support_problem(claim.text, source) is None, claim.text


def test_reader_shows_how_with_the_code_and_its_lead_in() -> None:
    response = generate("how do I set a timeout on a client?", *docs()).response
    texts = [c.text for c in response.claims]
    assert any(t.startswith("```python") for t in texts), texts


def test_reader_refuses_an_unrelated_question_and_an_empty_packet() -> None:
    response = generate("How long should I cook a mushroom risotto?", *docs()).response
    assert response.status == "insufficient_context"
    assert response.claims == [] and response.message == INSUFFICIENT_MESSAGE
    assert generate("anything?").response.status == "insufficient_context"


def test_reader_is_deterministic() -> None:
    first = generate("how do I include cookies in a request?", *docs()).response
    again = generate("how do I include cookies in a request?", *docs()).response
    assert first == again


def test_reader_limits_its_passages_and_rejects_bad_settings() -> None:
    # Threshold 0 so it answers: a refusal (no claims) would pass the cap vacuously. Uncapped,
    # this question quotes three passages.
    capped = ExtractiveGenerator(max_claims=1, threshold=0.0)
    response = generate("timeouts cookies redirects", *docs(), generator=capped).response
    assert response.status == "answered"
    # One passage; a code block shown with its prose is a claim of its own.
    assert len({c.citations[0] for c in response.claims}) <= 1
    with pytest.raises(ValueError, match="max_claims"):
        ExtractiveGenerator(max_claims=0)
    with pytest.raises(ValueError, match="threshold"):
        ExtractiveGenerator(threshold=1.5)


def test_reader_threshold_zero_answers_and_one_refuses() -> None:
    question = "what is the default timeout?"
    assert generate(question, *docs(), generator=ExtractiveGenerator(threshold=0.0)).response.claims
    never = ExtractiveGenerator(threshold=1.0)
    assert generate(question, *docs(), generator=never).response.status == "insufficient_context"


def test_question_kinds_are_read_from_the_question() -> None:
    assert Kind.VALUE in ask("what's the default port?", ()).kinds
    assert Kind.VALUE in ask("how many connections does the pool keep", ()).kinds
    assert Kind.HOWTO in ask("how do I enable HTTP/2?", ()).kinds
    assert Kind.HOWTO in ask("cache a whole view for 15 minutes", ()).kinds  # a request
    assert Kind.NAME in ask("which setting controls the cookie name?", ()).kinds
    assert Kind.CAUSE in ask("why does my upload fail?", ()).kinds
    assert Kind.YESNO in ask("is the pool shared between threads?", ()).kinds
    assert Kind.VALUE in ask("SESSION_COOKIE_AGE 默认是多少?", ()).kinds
    assert Kind.HOWTO in ask("¿cómo desactivo la verificación?", ()).kinds


def test_question_language_and_anchors() -> None:
    assert language("what is the default timeout?") == "en"
    assert language("¿cuál es el timeout por defecto?") == "es"
    assert language("如何启用 HTTP/2?") == "zh"
    spanish = ask("¿cuál es el timeout por defecto de httpx?", {"timeout", "httpx", "default"})
    assert spanish.foreign and spanish.reading == "timeout httpx default"
    chinese = ask("SESSION_COOKIE_AGE 默认是多少?", set())
    assert chinese.foreign and chinese.reading == "SESSION_COOKIE_AGE default"


# A Spanish question read through its English identifiers: tests/grounding/
# test_reader_spanish_twin.py.


def test_reader_refuses_a_foreign_question_whose_anchors_the_packet_lacks() -> None:
    for question in ("¿httpx soporta HTTP/3?", "怎么用 pytest 写参数化测试?"):
        assert generate(question, *docs()).response.status == "insufficient_context", question


def test_reader_reads_a_chinese_question_on_chinese_docs_whole() -> None:
    doc = chunk(ROLLBACK_ZH, "运维/回滚.md", "回滚部署")
    response = generate("如何回滚部署？", doc).response
    assert response.status == "answered"
    assert all(support_problem(claim.text, ROLLBACK_ZH) is None for claim in response.claims)


def test_reader_ignores_people_and_slack_markup_in_the_question() -> None:
    plain = generate("how do I include cookies in a request?", *docs()).response
    for question in (
        "@alice how do I include cookies in a request?",
        "<@U0BOB> how do I include cookies in a request? cc <@U0CAROL> <!here>",
        "how do I include cookies in a request? cc",
    ):
        assert generate(question, *docs()).response == plain, question


def test_weights_ship_with_the_package_and_match_the_features(tmp_path: Path) -> None:
    model = load_model()
    assert model.ranker.features == UNIT_FEATURES
    assert model.answerer.features == QUESTION_FEATURES
    assert 0.0 < model.threshold < 1.0 and model.trained_on
    stale = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    stale["ranker"]["features"] = ["coverage"]
    (tmp_path / "w.json").write_text(json.dumps(stale), encoding="utf-8")
    with pytest.raises(DocbotError, match=r"train_reader\.py"):
        load_model(tmp_path / "w.json")
