"""Block Kit rendering: golden replies per status, escaping of hostile text, and Slack's limits."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from bot.render import (
    MAX_BLOCKS,
    Message,
    escape,
    post_kwargs,
    render_answer,
    render_error,
    render_help,
    render_input_error,
    safe_url,
)
from grounding.answer import Answer, AnswerStatus, Claim, NoAnswer, Source
from retrieval.config import FeedbackConfig
from retrieval.scopes import ConversationKind, Scope

GOLDEN = Path(__file__).resolve().parent / "golden"
# Set to regenerate the golden files after an intended change; review the diff before committing.
UPDATE = os.environ.get("DOCBOT_UPDATE_GOLDEN") == "1"
SCOPE = Scope("T1", "C1", ConversationKind.CHANNEL, ("handbook", "payments"))
FEEDBACK = FeedbackConfig()
HOSTILE = ("<!channel>", "<!here>", "<@U123>", "<#C123>", "<http://evil|click>", "<!subteam^S1>")
LINK = re.compile(r"<([^<>|]*)\|([^<>]*)>")


def _source(n: int, path: str = "deploy.md", *, url: str | None = "default", **kw: Any) -> Source:
    fields: dict[str, Any] = {
        "collection": "handbook",
        "heading": "Rollback",
        "start_line": 40,
        "end_line": 52,
        "chunk_id": f"chunk{n}",
        "updated": "2026-10-02",
    }
    fields.update(kw)
    if url == "default":
        url = f"https://git.example.com/handbook/blob/main/{path}#L{fields['start_line']}"
    return Source(n=n, path=path, url=url, **fields)


def _answer(status: AnswerStatus = AnswerStatus.ANSWERED, **kw: Any) -> Answer:
    return Answer(status=status, question="how do I roll back?", scope=SCOPE, **kw)


ROLLBACK = _answer(
    claims=(Claim("Run `make rollback` from the deploy host.", (1,)),),
    sources=(_source(1),),
)
MIXED = _answer(
    claims=(
        Claim("Rollbacks restore the previous release within 5 minutes.", (1, 2)),
        Claim("The payments service needs a manual cache flush afterwards.", (2,)),
        Claim("Ask #sre if the rollback fails.", (3,)),
    ),
    sources=(
        _source(1),
        _source(2, "payments/ops.rst", url=None, heading="", start_line=7, end_line=7),
        _source(3, "oncall.md", heading="Escalation", updated=""),
    ),
)
QUOTED = _answer(
    claims=(
        Claim(
            "You can roll back with `make rollback`, run from the deploy host.",
            (1,),
            ("Run `make rollback` from the deploy host.",),
        ),
        Claim("Rollbacks take 5 minutes.", (1,), ("Rollbacks take 5 minutes.",)),
        Claim(
            "El rollback tarda 5 minutos.",
            (1,),
            ("A rollback takes about\n5 minutes & keeps <data>.",),
            other_language=True,
        ),
    ),
    sources=(_source(1),),
)
GOLDEN_CASES: dict[str, Message] = {
    "answered_one_claim": render_answer(ROLLBACK, FEEDBACK),
    # A paraphrase shows its quote; a claim that is its own quote does not repeat it; a claim in
    # another language shows its quote with a note on what was checked.
    "answered_with_quotes": render_answer(QUOTED, FEEDBACK),
    "answered_mixed_sources": render_answer(MIXED, FEEDBACK),
    "answered_custom_feedback": render_answer(
        ROLLBACK, FeedbackConfig(wrong=("thumbsdown", "x"), helpful=("tada",))
    ),
    # docbot.yml refuses empty emoji lists; the renderer still copes with a config that has none.
    "answered_no_feedback": render_answer(
        ROLLBACK, FeedbackConfig.model_construct(wrong=(), helpful=())
    ),
    "not_found": render_answer(
        _answer(AnswerStatus.NOT_FOUND, message="The documents do not cover rollbacks."),
        FEEDBACK,
    ),
    "answered_without_claims": render_answer(_answer(), FEEDBACK),
    "refused": render_answer(
        Answer(AnswerStatus.REFUSED, "q", Scope("T1", "C9", ConversationKind.EXTERNAL, ())),
        FEEDBACK,
    ),
    "refused_unverified": render_answer(
        Answer(AnswerStatus.REFUSED, "q", Scope("T1", "C9", ConversationKind.UNKNOWN, ())),
        FEEDBACK,
    ),
    "refused_with_reason": render_answer(
        Answer(
            AnswerStatus.REFUSED,
            "q",
            Scope("T1", "C9", ConversationKind.UNKNOWN, ()),
            message="I could not verify this channel's access settings with Slack, so I answer "
            "nothing here for now; try again in a minute.",
        ),
        FEEDBACK,
    ),
    "error_pipeline_message": render_answer(
        _answer(AnswerStatus.ERROR, reason=NoAnswer.MODEL_TIMEOUT, error_detail="timed out"),
        FEEDBACK,
    ),
    "help_unverified": render_help((), FEEDBACK, unverified=True),
    "error": render_answer(_answer(AnswerStatus.ERROR), FEEDBACK),  # no message: a fallback
    "help": render_help(("handbook", "payments"), FEEDBACK),
    "help_no_collections": render_help((), FEEDBACK),
    "render_error": render_error("chat.postMessage failed: ratelimited"),
    "hostile": render_answer(
        _answer(
            claims=(Claim("Tell <!channel> & <@U123> to use <http://evil|click>.", (1,)),),
            sources=(
                _source(
                    1,
                    "a<!here>.md",
                    heading="<#C123> & more",
                    url="https://x.example/a.md|<http://evil|click>",
                ),
            ),
        ),
        FEEDBACK,
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_render_matches_golden(name: str) -> None:
    actual = post_kwargs(GOLDEN_CASES[name])
    path = GOLDEN / f"{name}.json"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with DOCBOT_UPDATE_GOLDEN=1 and review it"
    assert actual == json.loads(path.read_text(encoding="utf-8"))


def test_render_golden_files_all_have_a_case() -> None:
    # A stale golden file would silently stop being checked.
    assert {p.stem for p in GOLDEN.glob("*.json")} == set(GOLDEN_CASES)


def test_escape_neutralises_slack_control_characters() -> None:
    assert escape("a & b <!here> c > d") == "a &amp; b &lt;!here&gt; c &gt; d"
    assert escape("&amp;") == "&amp;amp;"  # already-escaped text is shown literally, as written


def _texts(block: dict[str, Any]) -> list[str]:
    """The mrkdwn a block shows (the feedback buttons carry docbot's own fixed labels only)."""
    if block["type"] == "context_actions":
        return []
    texts = [block["text"]["text"]] if "text" in block else []
    return texts + [element["text"] for element in block.get("elements", ())]


def _all_text(message: Message) -> list[str]:
    return [message.text] + [text for block in message.blocks for text in _texts(block)]


def _assert_inert(message: Message, urls: set[str]) -> None:
    """Every `<` left in the message opens a link to one of `urls`: nothing else pings or links."""
    for text in _all_text(message):
        links = LINK.findall(text)
        assert {url for url, _ in links} <= urls, text
        without_links = LINK.sub("", text)
        assert "<" not in without_links and ">" not in without_links, text
        # A `|` inside a label is shown as is: Slack splits `<url|label>` at the first one only.
        assert all("<" not in label for _, label in links), text


@pytest.mark.parametrize("hostile", HOSTILE)
def test_render_answer_escapes_hostile_text_everywhere(hostile: str) -> None:
    answer = _answer(
        claims=(Claim(f"Use {hostile} now.", (1,)), Claim(f"{hostile}", (2,))),
        sources=(
            _source(1, f"docs/{hostile}.md", heading=f"Setup {hostile}", updated=hostile),
            _source(2, "b.md", url=None, heading=hostile, collection=hostile),
        ),
        message=hostile,
    )
    # Unvalidated, as if docbot.yml's checks were bypassed: the renderer escapes on its own.
    hostile_feedback = FeedbackConfig.model_construct(wrong=(hostile,), helpful=(hostile,))
    message = render_answer(answer, hostile_feedback)
    url = safe_url(answer.sources[0].url)
    assert url is not None
    _assert_inert(message, {url})
    assert any("&lt;" in text for text in _all_text(message))


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize(
    "shape",
    [
        "[{h}](https://e.example/{h})", "[see]({h})", ":ref:`{h} <label>`", ":func:`{h}`",
        ":pep:`{h}`", "**{h}**", "`{h}` **x**", ".. code-block:: sh\n\n   {h}\n",
        "Run::\n\n   {h}\n", ".. note::\n\n   {h}\n", "```\n{h}\n```",
    ],
)  # fmt: skip
def test_render_answer_keeps_hostile_text_escaped_through_markup(hostile: str, shape: str) -> None:
    """What the renderer reshapes (links, roles, bold, reST code) is escaped after it: no shape
    of a document's markup lets its text ping, link or forge a link."""
    claim = shape.format(h=hostile)
    answer = _answer(claims=(Claim(claim, (1,)),), sources=(_source(1, "a.rst"),))
    message = render_answer(answer, FeedbackConfig())
    url = safe_url(answer.sources[0].url)
    assert url is not None
    _assert_inert(message, {url})


@pytest.mark.parametrize("hostile", HOSTILE)
def test_render_other_replies_escape_hostile_text(hostile: str) -> None:
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, (hostile,))
    replies = [
        render_answer(Answer(AnswerStatus.NOT_FOUND, hostile, scope, message=hostile), FEEDBACK),
        render_answer(Answer(AnswerStatus.ERROR, hostile, scope, message=hostile), FEEDBACK),
        render_answer(Answer(AnswerStatus.REFUSED, hostile, scope, message=hostile), FEEDBACK),
        render_error(hostile),
        render_help((hostile, "handbook"), FeedbackConfig.model_construct(wrong=(hostile,))),
    ]
    for message in replies:
        _assert_inert(message, set())


def test_safe_url_cannot_forge_a_link() -> None:
    url = safe_url("https://x.example/a.md|<http://evil|click>")
    assert url == "https://x.example/a.md%7C%3Chttp://evil%7Cclick%3E"
    assert safe_url("https://x.example/?a=1&b=2") == "https://x.example/?a=1&amp;b=2"
    assert safe_url("https://x.example/a b\n") == "https://x.example/a%20b"


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://x/y", "", None, "//evil.example"])
def test_render_answer_links_only_http_urls(url: str | None) -> None:
    answer = _answer(claims=(Claim("A claim.", (1,)),), sources=(_source(1, url=url),))
    message = render_answer(answer, FEEDBACK)
    assert all(not LINK.search(text) for text in _all_text(message))
    assert "[1]" in message.blocks[0]["text"]["text"]


def _assert_within_limits(message: Message) -> None:
    assert 0 < len(message.blocks) <= MAX_BLOCKS
    assert message.text.strip()
    for block in message.blocks:
        for text in _texts(block):
            assert 0 < len(text) < 3000
            # Every link is whole and every `&` begins a whole entity: nothing was cut mid-way.
            assert text.count("<") == text.count(">") == len(LINK.findall(text))
            assert not re.search(r"&(?!amp;|lt;|gt;)", text), text


def test_render_answer_many_claims_truncates_but_keeps_sources() -> None:
    sources = tuple(_source(n, f"doc{n}.md") for n in range(1, 21))
    claims = tuple(Claim(f"Claim {i} " + "word & more " * 40, (i % 20 + 1,)) for i in range(300))
    message = render_answer(_answer(claims=claims, sources=sources), FEEDBACK)
    _assert_within_limits(message)
    text = "\n".join(_all_text(message))
    assert "more claims not shown" in text
    assert "*Sources*" in text and "doc20.md" in text
    assert "if this is wrong" in message.blocks[-2]["elements"][0]["text"]
    assert message.blocks[-1]["type"] == "context_actions"


def test_render_answer_splits_a_huge_claim_never_mid_link_or_entity() -> None:
    sources = tuple(_source(n) for n in range(1, 40))
    unbroken = Claim("&<>" * 3_000 + "x" * 5_000, tuple(range(1, 40)))
    spaced = Claim("lorem ipsum " * 700, (1,))
    message = render_answer(_answer(claims=(unbroken, spaced), sources=sources), FEEDBACK)
    _assert_within_limits(message)
    sections = [b["text"]["text"] for b in message.blocks if b["type"] == "section"]
    assert len(sections) >= 3
    assert "…" in "".join(sections)  # the over-budget claim is clipped visibly


def test_render_answer_drops_absurdly_long_links_but_keeps_the_source() -> None:
    url = "https://x.example/" + "a" * 5_000
    claims = (Claim("A claim.", (1,) * 30),)
    message = render_answer(_answer(claims=claims, sources=(_source(1, url=url),)), FEEDBACK)
    _assert_within_limits(message)
    assert "[1] deploy.md § Rollback (L40–L52)" in message.blocks[1]["elements"][0]["text"]


def test_render_not_found_with_many_collections_stays_within_limits() -> None:
    scope = Scope("T1", "C1", ConversationKind.CHANNEL, tuple(f"c{i}" * 20 for i in range(500)))
    _assert_within_limits(render_answer(Answer(AnswerStatus.NOT_FOUND, "q", scope), FEEDBACK))


def test_render_answer_too_many_sources_keeps_a_visible_note() -> None:
    sources = tuple(_source(n, "a/" * 150 + f"doc{n}.md", heading="H" * 300) for n in range(1, 200))
    claims = (Claim("One claim.", tuple(range(1, 200))),)
    message = render_answer(_answer(claims=claims, sources=sources), FEEDBACK)
    _assert_within_limits(message)
    assert "more sources not shown" in "\n".join(_all_text(message))


def test_render_answer_every_status_has_its_own_reply() -> None:
    replies = {
        status: render_answer(_answer(status), FEEDBACK).text
        for status in (AnswerStatus.NOT_FOUND, AnswerStatus.REFUSED, AnswerStatus.ERROR)
    }
    assert len(set(replies.values())) == 3
    assert "*handbook*, *payments*" in replies[AnswerStatus.NOT_FOUND]
    assert "admin" in replies[AnswerStatus.REFUSED]


UNVERIFIED = Scope("T1", "C1", ConversationKind.UNKNOWN, ())


def test_render_refused_unverified_channel_says_the_lookup_failed_not_ask_an_admin() -> None:
    """An empty UNKNOWN scope means Slack could not tell us the channel's properties: access
    might be fine, so sending people to an admin would chase the wrong cause."""
    bare = render_answer(Answer(AnswerStatus.REFUSED, "q", UNVERIFIED), FEEDBACK)
    help_reply = render_help((), FEEDBACK, unverified=True)
    for message in (bare, help_reply):
        text = " ".join(_all_text(message))
        assert "could not verify this channel" in text and "try again in a minute" in text
        assert "admin" not in text and "admin" not in message.text


def test_render_refused_shows_the_pipelines_reason() -> None:
    reason = "I could not verify this channel's access settings with Slack (pipeline's words)."
    message = render_answer(Answer(AnswerStatus.REFUSED, "q", UNVERIFIED, message=reason), FEEDBACK)
    assert escape(reason) in message.text and "admin" not in message.text


def test_render_answer_fallback_text_carries_claims_and_sources() -> None:
    message = render_answer(MIXED, FEEDBACK)
    assert message.text.startswith("Rollbacks restore the previous release within 5 minutes. [1]")
    assert "[2] payments/ops.rst (L7)" in message.text


def test_post_kwargs_turns_unfurling_off_and_copies_blocks() -> None:
    message = render_answer(ROLLBACK, FEEDBACK)
    kwargs = post_kwargs(message)
    assert kwargs["unfurl_links"] is False and kwargs["unfurl_media"] is False
    assert kwargs["text"] == message.text
    assert kwargs["blocks"] == list(message.blocks)
    kwargs["blocks"][0]["type"] = "changed"
    assert message.blocks[0]["type"] == "section"


def test_render_answer_code_claims_drop_the_fence_language_slack_cannot_use() -> None:
    claim = Claim("```yaml\naccess: private\n```", (1,))
    answer = _answer(claims=(claim,), sources=(_source(1),))
    text = render_answer(answer, FeedbackConfig()).blocks[0]["text"]["text"]
    assert "```\naccess: private\n```" in text
    assert "yaml" not in text


PUBLIC_ONLY = Scope("T1", "C1", ConversationKind.UNKNOWN, ("handbook",))


@pytest.mark.parametrize(
    "answer",
    [
        Answer(AnswerStatus.ANSWERED, "q", PUBLIC_ONLY, claims=ROLLBACK.claims,
               sources=ROLLBACK.sources),
        Answer(AnswerStatus.NOT_FOUND, "q", PUBLIC_ONLY),
    ],
)  # fmt: skip
def test_render_answer_says_when_only_public_collections_were_searched(answer: Answer) -> None:
    """docs/access.md: an unverifiable channel's reply says its access could not be verified."""
    text = " ".join(_all_text(render_answer(answer, FEEDBACK)))
    assert "could not verify this channel's settings with Slack" in text
    assert "public collections only" in text
    verified = Answer(answer.status, "q", SCOPE, claims=answer.claims, sources=answer.sources)
    assert "could not verify" not in " ".join(_all_text(render_answer(verified, FEEDBACK)))


def test_render_input_error_says_what_to_change_not_to_retry() -> None:
    message = render_input_error(
        "That question is 5,599 characters long; I can take up to 4,000. <!channel>"
    )
    text = " ".join([message.text, *_all_text(message)])
    assert "5,599 characters" in text and "<!channel>" not in text
    assert "try again" not in text.lower() and "admin" not in text


def _claim_shown(claim: str, path: str) -> str:
    """The first section of the reply to one claim citing `path`: the claim as Slack shows it."""
    answer = _answer(claims=(Claim(claim, (1,)),), sources=(_source(1, path),))
    text: str = render_answer(answer, FeedbackConfig()).blocks[0]["text"]["text"]
    return text


@pytest.mark.parametrize(
    ("claim", "shown"),
    [
        pytest.param(
            "If the primary does not answer:\n\n.. code-block:: sh\n   :linenos:\n\n"
            "   pagerctl escalate --team platform\n   pagerctl ack",
            "If the primary does not answer:\n\n```\npagerctl escalate --team platform\n"
            "pagerctl ack\n```",
            id="code-block",
        ),
        pytest.param(
            "Run the backup by hand like this::\n\n    backupctl run --full",
            "Run the backup by hand like this:\n```\nbackupctl run --full\n```",
            id="literal-block",
        ),
        pytest.param(
            "Run the backup by hand like this::",
            "Run the backup by hand like this:",
            id="lead-in-alone",
        ),
        pytest.param("```cpp\nstd::\n```", "```\nstd::\n```", id="markdown-fence-untouched"),
        pytest.param(
            "Keep it out of the repository.\n\n.. note::\n\n   Rotate the token yearly.",
            "Keep it out of the repository.\n\n.. note::\n\n   Rotate the token yearly.",
            id="a-note-is-no-code",
        ),
        pytest.param(
            "Check it:\n\n.. doctest::\n\n   >>> backup.last()\n   'nightly'",
            "Check it:\n\n```\n&gt;&gt;&gt; backup.last()\n'nightly'\n```",
            id="doctest",
        ),
    ],
)
def test_render_answer_shows_rest_code_as_slack_code_blocks(claim: str, shown: str) -> None:
    """A reST code directive or literal block is a code block in Slack, not raw `.. code-block::`
    markup with its indentation; the `::` that introduces a literal block reads as `:`. Another
    directive's `::` opens no code: a note's prose is no code block under '.. note:'."""
    text = _claim_shown(claim, "oncall.rst")
    assert text.startswith(shown + " <"), text


@pytest.mark.parametrize(
    ("claim", "shown"),
    [
        (":setting:`DEPLOY_TIMEOUT` sets it", "`DEPLOY_TIMEOUT` sets it"),
        ("see :ref:`the rollback guide <rollback-guide>`", "see the rollback guide"),
        ("by :func:`deploy.run` and :py:class:`~deploy.Runner`", "by `deploy.run` and `Runner`"),
        ("as :pep:`8` says, a :term:`release`", "as PEP 8 says, a release"),
        ("```\n:func:`x`\n```", "```\n:func:`x`\n```"),
    ],
)  # fmt: skip
def test_render_answer_shows_rest_roles_as_the_built_docs_do(claim: str, shown: str) -> None:
    """A Sphinx role is its text in Slack: code for a name, the title for a link."""
    text = _claim_shown(claim, "settings.rst")
    assert text.startswith(shown + " <"), text


@pytest.mark.parametrize(
    ("claim", "shown"),
    [
        ("**Note:** never commit a secret", "*Note:* never commit a secret"),
        ("See [the Vault guide](https://vault.example.com/guide).",
         "See the Vault guide (https://vault.example.com/guide)."),
        ("See [the page](../deploy/rollback.md#steps) first", "See the page first"),
        ("pass **kwargs and **options through", "pass **kwargs and **options through"),
        ("define __init__ and __eq__", "define __init__ and __eq__"),
        ("keep `**x**` and `[a](b)` as code", "keep `**x**` and `[a](b)` as code"),
    ],
)  # fmt: skip
def test_render_answer_shows_markdown_emphasis_and_links_as_slack_text(
    claim: str, shown: str
) -> None:
    """Slack's bold is one asterisk and it knows no Markdown links: a link is its text (and its
    address, never made a link: links come only from the collection's `url`)."""
    text = _claim_shown(claim, "secrets.md")
    assert text.startswith(shown + " <"), text
    assert "<https://vault" not in text
