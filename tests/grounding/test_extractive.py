"""The extractive generator on handmade evidence packets."""

from __future__ import annotations

import asyncio

import pytest

from grounding.evidence import EvidenceItem, EvidencePacket, PackPolicy
from grounding.generators.base import Generation, GenerationRequest, Generator, Prompt
from grounding.generators.extractive import (
    INSUFFICIENT_MESSAGE,
    ExtractiveGenerator,
    candidates,
    clean,
    score_candidates,
    terms,
)
from grounding.generators.segmentation import Markup, UnitKind, split_units
from grounding.verify import support_problem
from retrieval.chunks import Chunk, make_chunk_id, normalize_text, text_digest
from retrieval.scopes import ConversationKind, Scope

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

LIMITS = """\
Limits
======

Use ``httpx.Limits`` to configure the pool:

| option | meaning |
|--------|---------|
| `max_connections` | maximum number of allowable connections (default 100) |
| `keepalive_expiry` | time limit on idle keep-alive connections in seconds |
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


def packet(question: str, *chunks: Chunk, scores: tuple[float, ...] = ()) -> EvidencePacket:
    scores = scores or tuple(10.0 - i for i in range(len(chunks)))
    items = tuple(
        EvidenceItem(label=f"E{i}", chunk=c, score=s)
        for i, (c, s) in enumerate(zip(chunks, scores, strict=True), start=1)
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


def test_extractive_conforms_to_the_generator_protocol() -> None:
    generator: Generator = ExtractiveGenerator()
    assert generator.name == "extractive"


def test_extractive_picks_the_answering_sentence() -> None:
    generation = generate("How long before a TimeoutException is raised?", *docs())
    response = generation.response
    assert response.status == "answered"
    first = response.claims[0]
    assert "after 5 seconds of network inactivity" in first.text
    assert first.citations == ["E2"]
    assert COOKIES.split(".")[0] not in first.text


def test_extractive_cites_the_label_of_the_chunk_it_quotes() -> None:
    response = generate("How do I include cookies in an outgoing request?", *docs()).response
    assert response.status == "answered"
    assert response.claims[0].citations == ["E1"]
    assert "`cookies` parameter" in response.claims[0].text


def test_extractive_keeps_a_code_block_whole_for_a_how_question() -> None:
    response = generate("How do I set a default timeout on a client?", *docs()).response
    prose, code = response.claims[0], response.claims[1]
    assert prose.text.startswith("You can set a timeout on a client instance")
    block = TIMEOUTS[TIMEOUTS.index("```python") : TIMEOUTS.rindex("```") + 3]
    assert code.text == block
    assert prose.citations == code.citations == ["E2"]


def test_extractive_claims_read_verbatim_in_their_evidence() -> None:
    chunks = docs()
    for question in (
        "How do I follow redirects?",
        "How do I set a default timeout on a client?",
        "What does the history property of the response show?",
    ):
        response = generate(question, *chunks).response
        assert response.status == "answered", question
        for claim in response.claims:
            source = chunks[int(claim.citations[0][1:]) - 1].text
            assert normalize_text(claim.text) in normalize_text(source), question


def test_extractive_strips_list_bullets_but_keeps_inline_markup() -> None:
    response = generate("Which parameter enables following redirects?", *docs()).response
    claim = response.claims[0]
    assert claim.text.startswith("You can use the `follow_redirects` parameter")
    assert claim.citations == ["E3"]


def test_extractive_reads_table_rows_as_units() -> None:
    limits = chunk(LIMITS, "limits.rst", "Limits")
    response = generate("What is the default maximum number of connections?", limits).response
    assert response.status == "answered"
    assert response.claims[0].text == (
        "`max_connections` | maximum number of allowable connections (default 100)"
    )


def test_extractive_returns_insufficient_context_for_an_unrelated_question() -> None:
    response = generate("How long should I cook a mushroom risotto?", *docs()).response
    assert response.status == "insufficient_context"
    assert response.claims == []
    assert response.message == INSUFFICIENT_MESSAGE


def test_extractive_returns_insufficient_context_for_an_empty_packet() -> None:
    response = generate("How do I set a timeout?").response
    assert response.status == "insufficient_context"


def test_extractive_refuses_when_the_specific_term_is_missing() -> None:
    response = generate("Does httpx support HTTP/3?", *docs()).response
    assert response.status == "insufficient_context"


def test_extractive_is_deterministic() -> None:
    chunks = docs()
    questions = ("How do I follow redirects?", "How do I set a default timeout on a client?")
    for question in questions:
        runs = {generate(question, *chunks).response.model_dump_json() for _ in range(3)}
        assert len(runs) == 1


def test_extractive_limits_the_number_of_claims() -> None:
    generator = ExtractiveGenerator(max_claims=1, threshold=0.0)
    response = generate("timeouts redirects cookies", *docs(), generator=generator).response
    assert len(response.claims) == 1
    wide = ExtractiveGenerator(max_claims=3, threshold=0.0)
    assert len(generate("timeouts redirects cookies", *docs(), generator=wide).response.claims) > 1


def test_extractive_rejects_bad_settings() -> None:
    with pytest.raises(ValueError, match="max_claims"):
        ExtractiveGenerator(max_claims=0)
    with pytest.raises(ValueError, match="threshold"):
        ExtractiveGenerator(threshold=1.5)


def test_segmentation_keeps_fenced_code_whole_and_splits_sentences() -> None:
    units = split_units(TIMEOUTS, Markup.MARKDOWN)
    kinds = [u.kind for u in units]
    assert kinds == [
        UnitKind.HEADING,
        UnitKind.SENTENCE,
        UnitKind.SENTENCE,
        UnitKind.SENTENCE,
        UnitKind.CODE,
    ]
    assert units[4].text.startswith("```python") and units[4].text.endswith("```")
    assert all(TIMEOUTS[u.start : u.end] == u.text for u in units)


def test_segmentation_reads_rest_literal_blocks_and_headings() -> None:
    text = "Sessions\n========\n\nEnable them like so::\n\n    MIDDLEWARE = ['a.b']\n\nDone."
    units = split_units(text, Markup.REST)
    assert [u.kind for u in units] == [
        UnitKind.HEADING,
        UnitKind.SENTENCE,
        UnitKind.CODE,
        UnitKind.SENTENCE,
    ]
    assert units[2].text == "    MIDDLEWARE = ['a.b']"  # verbatim; claims show it dedented
    assert clean(units[2]) == "MIDDLEWARE = ['a.b']"
    assert units[3].section == "Sessions"


def test_segmentation_does_not_split_inside_code_or_after_abbreviations() -> None:
    text = "Use `a. B` here, e.g. Foo is fine. Then stop."
    units = split_units(text, Markup.MARKDOWN)
    assert [u.text for u in units] == ["Use `a. B` here, e.g. Foo is fine.", "Then stop."]


def test_segmentation_closes_a_fence_only_on_a_bare_fence_line() -> None:
    # A line such as ```python inside a fence is content (CommonMark): the fence that opened
    # the block closes only on the same character, at least as many, and nothing after it.
    text = "```text\nOpen a Python block with:\n```python\n```\n\nAfter the block."
    units = split_units(text, Markup.MARKDOWN)
    assert [(u.kind, u.text) for u in units] == [
        (UnitKind.CODE, text.split("\n\n")[0]),
        (UnitKind.SENTENCE, "After the block."),
    ]


STREAMING = """\
## Streaming Responses

You can stream the binary content of the response...

```pycon
>>> with httpx.stream("GET", "https://www.example.com") as r:
...     for data in r.iter_bytes():
...         print(data)
```
"""


def verifier_problems(question: str, *chunks: Chunk) -> list[str]:
    response = generate(question, *chunks).response
    assert response.status == "answered"
    problems = []
    for claim in response.claims:
        source = chunks[int(claim.citations[0][1:]) - 1].text
        problem = support_problem(claim.text, source)
        if problem:
            problems.append(problem)
    return problems


def test_extractive_claims_pass_the_verifier() -> None:
    assert verifier_problems("How do I set a default timeout on a client?", *docs()) == []
    assert verifier_problems("Which parameter enables following redirects?", *docs()) == []


def test_extractive_code_claims_with_urls_pass_the_verifier() -> None:
    streaming = chunk(STREAMING, "quickstart.md", "Streaming Responses")
    assert verifier_problems("How do I stream the response?", streaming) == []


SESSIONS = """\
Enabling sessions
=================

To enable session functionality, do the following:

* Edit the ``MIDDLEWARE`` setting and make sure it contains
  ``'django.contrib.sessions.middleware.SessionMiddleware'``.
* Run ``manage.py migrate`` to install the single database table.
"""


def test_extractive_quotes_a_list_with_its_bullets_after_its_lead_in() -> None:
    sessions = chunk(SESSIONS, "topics/http/sessions.txt", "Enabling sessions")
    response = generate("How do I enable session functionality?", sessions).response
    assert response.claims[0].text == (
        "To enable session functionality, do the following:\n"
        "* Edit the ``MIDDLEWARE`` setting and make sure it contains "
        "``'django.contrib.sessions.middleware.SessionMiddleware'``.\n"
        "* Run ``manage.py migrate`` to install the single database table."
    )
    assert support_problem(response.claims[0].text, SESSIONS) is None


# A config example holds common words (`docs/`, `answer:`, `.docbot`) far apart: not about them.
CONFIG_EXAMPLE = """\
## A complete example

```yaml
state_dir: .docbot
teams: [T0123ABC]
collections:
  - name: handbook
    path: docs/handbook
    include: ["**/*.md"]
    access: public
conversations:
  dm: public
  external: none
answer:
  generator: auto
  evidence_tokens: 3000
feedback:
  wrong: [x, thumbsdown]
```
"""

PROMISES = """\
## What docbot promises

- It answers only from the documents the channel is allowed to read. It never answers from
  general knowledge: when the documentation does not cover a question, docbot says so plainly.
- Every claim in a reply was checked in code against the passage it cites before it was posted.
"""

BENCHMARK_NOTES = """\
## Quality

The Python docs and the Django docs chunked by docbot's chunker at 80 tokens, plus 2,067
paragraphs as one chunk each. On the answerable questions every variant of docbot finds an
expected file in the top 5; MRR@10 is 0.933 for the docs tokenizer.
"""


def test_extractive_never_quotes_a_code_block_that_only_shares_scattered_words() -> None:
    config = chunk(CONFIG_EXAMPLE, "configuration.md", "A complete example")
    question = "What does docbot do when the docs do not have the answer?"
    # The code block is the top retrieved chunk and holds every content word of the question.
    response = generate(question, config, chunk(BENCHMARK_NOTES, "performance.md")).response
    assert all("```" not in claim.text for claim in response.claims)
    with_answer = generate(question, config, chunk(PROMISES, "index.md", "What docbot promises"))
    claims = with_answer.response.claims
    assert claims and all("```" not in claim.text for claim in claims)
    assert "docbot says so plainly" in claims[0].text


def test_extractive_reads_docs_as_documentation() -> None:
    assert terms("the docs and the config repo") == terms("documentation configuration repository")
    question = "What does docbot do when the docs do not have the answer?"
    promises = chunk(PROMISES, "index.md", "What docbot promises")
    best = score_candidates(question, candidates(packet(question, promises)))[0]
    assert "docbot says so plainly" in best.candidate.unit.text
    assert best.coverage == pytest.approx(1.0)


CANNOT_ANSWER = """\
## Answers that cannot be given

When a conversation may read no collection at all, docbot replies that it cannot answer here.
When the conversation may read collections but the answer is not in them, docbot replies that
the documentation it searched does not cover the question.
"""


def test_extractive_prefers_the_answer_to_sentences_sharing_only_common_words() -> None:
    question = "What does docbot do when the docs do not have the answer?"
    access = chunk(CANNOT_ANSWER, "access.md", "Answers that cannot be given")
    notes = chunk(BENCHMARK_NOTES, "performance.md", "Quality")
    response = generate(question, access, notes).response
    assert response.claims[0].text.startswith("When the conversation may read collections")
    # Sharing "docbot" and "docs" with the question is not a second answer.
    assert all("MRR@10" not in c.text and "chunker" not in c.text for c in response.claims)


def test_extractive_code_block_needs_the_question_words_close_together() -> None:
    scattered = chunk(CONFIG_EXAMPLE, "configuration.md", "A complete example")
    response = generate("How do I set the feedback for public handbook teams?", scattered)
    assert response.response.status == "insufficient_context"
    near = chunk(TIMEOUTS, "timeouts.md", "Timeouts")
    claims = generate("How do I disable all timeouts?", near).response.claims
    assert any("timeout=None" in claim.text for claim in claims)


ROTATE_RUNBOOK = """\
# Rotating the Slack signing secret

## When to rotate

Rotate the signing secret when it may have leaked: it was pasted in a chat, committed to a
repository, or someone who knew it left the team.

## Steps

1. In the Slack app settings, open Basic Information and choose **Regenerate** next to the
   Signing Secret.
2. Update `SLACK_SIGNING_SECRET` in the deployment's secret store.
3. Restart every `docbot serve` process. Requests signed with the old secret are rejected from
   the moment Slack switches.
4. Mention docbot in a test channel and check that it answers.
"""

RESTORE_RUNBOOK = """\
# Restoring the answer store from a backup

The answer store is the SQLite file `answers.sqlite3` under `state_dir`. Backups are taken every
night with `sqlite3 answers.sqlite3 ".backup answers-backup.sqlite3"` and kept for 30 days.

## Restore

1. Stop every `docbot serve` process that uses the store.
2. Copy the backup over `answers.sqlite3` and delete the `-wal` and `-shm` files next to it.
3. Start docbot again.
"""

PIPELINE = """\
## How an answer is made

1. **Retrieval.** It searches only the chunks of the collections with BM25 ranking.
2. **Generation.** A model answers in claims. With no API key, docbot uses its built-in
   extractive generator, which picks the sentences that best answer the question.
3. **Reply.** The verified claims are posted in the thread with the numbered sources.
"""


def test_extractive_answers_how_do_i_with_the_steps_not_the_when() -> None:
    runbook = chunk(ROTATE_RUNBOOK, "rotate-signing-secret.md", "Rotating the Slack signing secret")
    response = generate("How do I rotate the signing secret?", runbook).response
    first = response.claims[0]
    assert first.text.startswith("1. In the Slack app settings, open Basic Information")
    assert first.text.endswith("4. Mention docbot in a test channel and check that it answers.")
    assert support_problem(first.text, ROTATE_RUNBOOK) is None


def test_extractive_quotes_a_whole_procedure_rather_than_its_best_step() -> None:
    runbook = chunk(RESTORE_RUNBOOK, "restore-answer-store.md", "Restoring the answer store")
    response = generate("How do I restore the answer store from a backup?", runbook).response
    steps = "\n".join(claim.text for claim in response.claims)
    for step in ("1. Stop every", "2. Copy the backup", "3. Start docbot again."):
        assert step in steps
    assert "Backups are taken every" not in response.claims[0].text


def test_extractive_quotes_one_step_when_the_question_does_not_ask_how() -> None:
    runbook = chunk(RESTORE_RUNBOOK, "restore-answer-store.md", "Restoring the answer store")
    response = generate("Which files next to answers.sqlite3 must be deleted?", runbook).response
    assert response.claims[0].text.startswith("Copy the backup over")
    assert "Stop every" not in response.claims[0].text


def test_extractive_does_not_treat_a_numbered_description_as_a_procedure() -> None:
    pipeline = chunk(PIPELINE, "index.md", "How an answer is made")
    response = generate("How do I run docbot without an API key?", pipeline).response
    assert response.claims[0].text.startswith("**Generation.** A model answers in claims.")
    assert "**Retrieval.**" not in response.claims[0].text


# Documents in other languages: searched by retrieval's Unicode tokenizer, so the generator must
# read them too (words of any script, CJK bigrams and sentence ends).
ROLLBACK_ZH = """\
## 回滚部署

新版本上线后如果出现严重错误，值班工程师应当立即回滚部署。
运行 `deploy rollback --to previous` 命令即可恢复到上一个版本。
回滚通常在两分钟内完成，完成后请在频道里通知团队。

## 数据库备份

数据库每天凌晨三点自动备份一次，备份文件保留三十天。
"""

ROLLBACK_RU = """\
## Откат развёртывания

Если после выпуска новой версии появились серьёзные ошибки, дежурный инженер откатывает
развёртывание. Чтобы откатить развёртывание, выполните команду `deploy rollback --to previous`.
Откат обычно занимает не больше двух минут.

## Резервные копии

Резервная копия базы данных создаётся каждую ночь и хранится тридцать дней.
"""

ROLLBACK_DE = """\
## Zurückrollen einer Bereitstellung

Wenn nach einer neuen Version schwere Fehler auftreten, rollt der Bereitschaftsdienst die
Bereitstellung zurück. Die Größe des Verbindungspools lässt sich über `pool_size` ändern.
Für das Zurückrollen führen Sie `deploy rollback --to previous` aus.
"""


def test_segmentation_ends_cjk_sentences_without_a_space() -> None:
    units = split_units("第一句话在这里。第二句话在这里！第三句？", Markup.MARKDOWN)
    assert [u.text for u in units] == ["第一句话在这里。", "第二句话在这里！", "第三句？"]
    russian = split_units("Первое предложение. Второе предложение.", Markup.MARKDOWN)
    assert [u.text for u in russian] == ["Первое предложение.", "Второе предложение."]


def test_terms_read_words_of_any_script() -> None:
    assert terms("развёртывание") == terms("развёртывания")  # one word, two cases
    assert "größe" in terms("Die Größe des Pools")
    assert {"回滚", "部署"} <= set(terms("如何回滚部署？"))
    assert "如何" not in terms("如何回滚部署？")  # a question word, not what is asked


def test_extractive_answers_a_chinese_question_verbatim() -> None:
    doc = chunk(ROLLBACK_ZH, "运维/回滚.md", "回滚部署")
    response = generate("如何回滚部署？", doc).response
    assert response.status == "answered"
    assert "回滚部署" in response.claims[0].text
    assert all(support_problem(claim.text, ROLLBACK_ZH) is None for claim in response.claims)
    assert generate("红烧肉应该炖多久？", doc).response.status == "insufficient_context"


def test_extractive_answers_a_russian_question_across_inflections() -> None:
    doc = chunk(ROLLBACK_RU, "ops/rollback.md", "Откат развёртывания")
    response = generate("Как откатить развёртывание?", doc).response
    assert response.status == "answered"
    assert "Чтобы откатить развёртывание" in response.claims[0].text
    assert all(support_problem(claim.text, ROLLBACK_RU) is None for claim in response.claims)
    # "развёртывания" (genitive) meets "развёртывание" in the evidence.
    assert generate("Сколько времени занимает откат развёртывания?", doc).response.claims


def test_extractive_answers_a_german_question_with_umlauts() -> None:
    doc = chunk(ROLLBACK_DE, "ops/rollback.md", "Zurückrollen einer Bereitstellung")
    response = generate("Wie kann ich die Größe des Verbindungspools ändern?", doc).response
    assert response.status == "answered"
    assert response.claims[0].text.startswith("Die Größe des Verbindungspools")
    assert support_problem(response.claims[0].text, ROLLBACK_DE) is None


def test_extractive_ignores_handles_and_slack_markup_in_the_question() -> None:
    for question in (
        "@alice how do I set a default timeout on a client?",
        "<@U0BOB> how do I set a default timeout on a client?",
        "How do I set a default timeout on a client? cc @bob <!here> <#C0DEV|dev>",
    ):
        response = generate(question, *docs()).response
        assert response.status == "answered", question
        assert response.claims[0].text.startswith("You can set a timeout on a client instance")


DECORATORS = """\
## Cached properties

Use the `@cached_property` decorator to compute a value once per instance and keep it.
"""


def test_extractive_keeps_an_at_name_the_evidence_holds() -> None:
    doc = chunk(DECORATORS, "caching.md", "Cached properties")
    # `@cached_property` is in the docs: a decorator, not a Slack handle.
    best = score_candidates("what does @cached_property do?", candidates(packet("q", doc)))[0]
    assert "@cached_property" in best.candidate.unit.text
    assert generate("what does @cached_property do?", doc).response.status == "answered"


def test_extractive_answers_despite_a_version_the_docs_do_not_name() -> None:
    response = generate("How do I follow redirects in httpx 0.28?", *docs()).response
    assert response.status == "answered"
    assert "follow redirects" in response.claims[0].text
    # A feature name the docs lack still refuses, with or without a version around it.
    assert generate("Does httpx 0.28 support HTTP/3?", *docs()).response.status == (
        "insufficient_context"
    )


JSON_QUICKSTART = """\
## Sending Form Encoded Data

Some types of HTTP requests, such as `POST` and `PUT` requests, can include data
in the request body. One common way of including that is as form-encoded data,
which is used for HTML forms.

```pycon
>>> data = {'key1': 'value1', 'key2': 'value2'}
>>> r = httpx.post("https://httpbin.org/post", data=data)
```

## Sending JSON Encoded Data

Form encoded data is okay if all you need is a simple key-value data structure.
For more complicated data structures you'll often want to use JSON encoding instead.

```pycon
>>> data = {'integer': 123, 'boolean': True, 'list': ['a', 'b', 'c']}
>>> r = httpx.post("https://httpbin.org/post", json=data)
```
"""

CLIENT_REQUESTS = """\
## Making requests

Once you have a `Client`, you can send requests using `.get()`, `.post()`, etc. For example:

```pycon
>>> with httpx.Client() as client:
...     r = client.get('https://example.com')
```
"""


def test_extractive_answers_how_with_the_code_under_the_matching_heading() -> None:
    quickstart = chunk(JSON_QUICKSTART, "quickstart.md", "QuickStart")
    clients = chunk(CLIENT_REQUESTS, "advanced/clients.md", "Making requests")
    response = generate("How do I send a JSON body in a POST request?", quickstart, clients)
    claims = response.response.claims
    assert claims[0].text.startswith("For more complicated data structures")
    assert "json=data" in claims[1].text


ASYNC_DOCS = """\
## Supported async environments

HTTPX supports either `asyncio` or `trio` as an async environment.

It will auto-detect which of those two to use as the backend
for socket operations and concurrency primitives.

### AsyncIO

AsyncIO is Python's built-in library for writing concurrent code with the async/await syntax.

```python
import asyncio
import httpx

async def main():
    async with httpx.AsyncClient() as client:
        response = await client.get('https://www.example.com/')
        print(response)

asyncio.run(main())
```
"""


def test_extractive_answers_how_to_use_with_the_code_that_shows_it() -> None:
    doc = chunk(ASYNC_DOCS, "async.md", "Async Support")
    claims = generate("How do I use httpx with asyncio?", doc).response.claims
    assert any("httpx.AsyncClient()" in claim.text for claim in claims)


CONFIG_TABLE = """\
## answer

| key | default | meaning |
|-----|---------|---------|
| `model` | `gpt-5-mini` | The OpenAI model that writes answers. |
| `reasoning_effort` | `low` | Set it to `null` for servers that do not support it. |
| `evidence_tokens` | `3000` | The evidence budget in tokens (`o200k_base` encoding). |
"""

EVIDENCE_STEP = """\
## How an answer is made

3. **Evidence.** It packs a small labelled set of passages (`E1`, `E2`, ...) under a token budget,
   at most two per file by default, and records every passage it left out and why.
"""

WORKSPACES = """\
## Workspaces

docbot answers only in the Slack workspaces listed under `teams` in the config; it ignores
events from other teams.
"""


def test_extractive_refuses_a_multi_word_name_no_evidence_mentions() -> None:
    # "Teams" matches the `teams` key, but "Microsoft Teams" is another subject.
    chunks = (
        chunk(CONFIG_TABLE, "configuration.md", "answer"),
        chunk(WORKSPACES, "slack.md", "Workspaces"),
    )
    response = generate("Does docbot support Microsoft Teams?", *chunks).response
    assert response.status == "insufficient_context"


def test_extractive_answers_a_multi_word_name_the_evidence_says() -> None:
    text = "## Chat apps\n\ndocbot does not support Microsoft Teams yet; it runs in Slack only.\n"
    chunks = (chunk(text, "faq.md", "Chat apps"), chunk(WORKSPACES, "slack.md", "Workspaces"))
    response = generate("Does docbot support Microsoft Teams?", *chunks).response
    assert response.status == "answered"
    assert "Microsoft Teams" in response.claims[0].text


def test_extractive_reads_a_table_row_under_its_header() -> None:
    chunks = (
        chunk(EVIDENCE_STEP, "index.md", "How an answer is made"),
        chunk(CONFIG_TABLE, "configuration.md", "answer"),
    )
    response = generate("What is the default number of evidence tokens?", *chunks).response
    assert response.status == "answered"
    assert "`evidence_tokens` | `3000`" in response.claims[0].text
    assert response.claims[0].citations == ["E2"]


def test_extractive_table_header_is_context_of_its_rows_only() -> None:
    (table,) = [c for c in candidates(packet("q", chunk(CONFIG_TABLE))) if "3000" in c.unit.text]
    assert {"key", "default", "mean"} <= table.context
    (prose,) = candidates(packet("q", chunk(WORKSPACES)))
    assert "default" not in prose.context
