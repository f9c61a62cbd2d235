"""pack(): selection in rank order, the ledger's reasons, the budget, and neighbour expansion."""

from __future__ import annotations

from grounding.evidence import EvidencePacket, PackPolicy, pack
from grounding.prompt import build_prompt
from grounding.untrusted import evidence_block
from retrieval.chunks import Chunk, Hit
from retrieval.config import AnswerConfig
from tests.grounding.fakes import FakeRetriever, WordCounter, hits_of, make_chunk, make_scope

SCOPE = make_scope("handbook", "payments")


def _pack(
    hits: tuple[Hit, ...],
    policy: PackPolicy | None = None,
    retriever: FakeRetriever | None = None,
) -> EvidencePacket:
    return pack(
        "how do I roll back?",
        SCOPE,
        "gen-1",
        hits,
        policy or PackPolicy(neighbours=False),
        WordCounter(),
        retriever.adjacent if retriever else None,
    )


def _reasons(packet: EvidencePacket) -> dict[str, str]:
    return {o.chunk_id: o.reason for o in packet.omitted}


def test_pack_labels_items_in_rank_order() -> None:
    a, b, c = (make_chunk(f"text {n}", path=f"{n}.md") for n in "abc")
    packet = _pack((Hit(c, 1.0, 3), Hit(a, 3.0, 1), Hit(b, 2.0, 2)))
    assert [(i.label, i.chunk) for i in packet.items] == [("E1", a), ("E2", b), ("E3", c)]
    assert packet.omitted == ()
    assert packet.question == "how do I roll back?" and packet.generation == "gen-1"


def test_pack_duplicate_chunk_id_is_ledgered() -> None:
    a = make_chunk("roll back with deploy --undo")
    packet = _pack((Hit(a, 2.0, 1), Hit(a, 2.0, 2)))
    assert [i.chunk for i in packet.items] == [a]
    assert [(o.chunk_id, o.reason, o.detail) for o in packet.omitted] == [
        (a.chunk_id, "duplicate", "E1")
    ]


def test_pack_same_text_keeps_one_representative() -> None:
    first = make_chunk("Run deploy --undo to roll back.", path="deploy.md")
    copy = make_chunk("Run  deploy --undo\nto roll back.", path="old/deploy.md")
    other = make_chunk("Something else entirely.", path="misc.md")
    packet = _pack(hits_of(first, copy, other))
    assert [i.chunk for i in packet.items] == [first, other]
    assert packet.items[0].same_text == (copy.chunk_id,)
    assert packet.items[1].same_text == ()
    omission = packet.omitted[0]
    assert (omission.chunk_id, omission.reason, omission.detail) == (
        copy.chunk_id,
        "same_text_as",
        first.chunk_id,
    )


def test_pack_per_source_limit_counts_collection_and_path() -> None:
    same = [make_chunk(f"part {n}", start_line=n * 10) for n in range(3)]
    elsewhere = make_chunk("part 9", collection="payments")
    packet = _pack(hits_of(*same, elsewhere), PackPolicy(per_source_limit=2, neighbours=False))
    assert [i.chunk for i in packet.items] == [same[0], same[1], elsewhere]
    assert _reasons(packet) == {same[2].chunk_id: "per_source_limit"}
    assert packet.omitted[0].detail == "handbook/deploy.md"


def test_pack_drops_hits_below_min_score() -> None:
    good, weak = make_chunk("good", path="g.md"), make_chunk("weak", path="w.md")
    packet = _pack(hits_of(good, weak, scores=[2.0, 0.4]), PackPolicy(min_score=0.5))
    assert [i.chunk for i in packet.items] == [good]
    assert _reasons(packet) == {weak.chunk_id: "below_min_score"}


def test_pack_counts_the_rendered_blocks_against_the_budget() -> None:
    chunks = [make_chunk(" ".join([f"word{n}"] * 30), path=f"{n}.md") for n in range(5)]
    one_block = WordCounter().count(evidence_block("E1", chunks[0], ""))
    policy = PackPolicy(evidence_tokens=one_block * 2 + 5, neighbours=False)
    packet = _pack(hits_of(*chunks), policy)
    assert len(packet.items) == 2
    expected = sum(
        WordCounter().count(evidence_block(i.label, i.chunk, packet.nonce)) for i in packet.items
    )
    assert packet.tokens == expected <= policy.evidence_tokens
    assert [o.reason for o in packet.omitted] == ["budget"] * 3


class CharCounter:
    """Counts characters, so the fence's nonce changes the count (words would not)."""

    def count(self, text: str) -> int:
        return len(text)


def test_pack_counts_each_block_exactly_as_the_prompt_renders_it() -> None:
    chunks = [make_chunk(f"fact {n} " * 5, path=f"{n}.md") for n in range(3)]
    nonce = "0f1e2d3c4b5a6978"
    policy = PackPolicy(neighbours=False)
    hits = hits_of(*chunks)
    packet = pack("q", SCOPE, "gen-1", hits, policy, CharCounter(), nonce=nonce)
    blocks = [evidence_block(i.label, i.chunk, nonce) for i in packet.items]
    assert packet.nonce == nonce and len(blocks) == 3
    assert packet.tokens == sum(len(block) for block in blocks)
    text = build_prompt(packet).input
    assert all(block in text for block in blocks)


def test_pack_skips_a_hit_over_the_budget_and_packs_later_ones_that_fit() -> None:
    big = make_chunk(" ".join(["long"] * 200), path="big.md")
    small = make_chunk("short text", path="small.md")
    first = make_chunk("first hit", path="first.md")
    budget = WordCounter().count(evidence_block("E1", first, "")) + 40
    packet = _pack(hits_of(first, big, small), PackPolicy(evidence_tokens=budget, neighbours=False))
    assert [(i.label, i.chunk) for i in packet.items] == [("E1", first), ("E2", small)]
    assert _reasons(packet) == {big.chunk_id: "budget"}
    assert packet.omitted[0].detail.startswith("needs ")
    assert packet.tokens <= budget


def test_pack_an_oversized_first_hit_does_not_hide_the_small_ones_after_it() -> None:
    # A chunk bigger than the whole budget ranked first used to stop the packing: every later
    # hit was ledgered `budget` and the answer came out not_found.
    huge = make_chunk(" ".join(["row"] * 500), path="table.md")
    answer = make_chunk("The retry limit is 5.", path="limits.md")
    policy = PackPolicy(evidence_tokens=100, neighbours=False)
    packet = _pack(hits_of(huge, answer), policy)
    assert [i.chunk for i in packet.items] == [answer]
    assert [(o.chunk_id, o.reason) for o in packet.omitted] == [(huge.chunk_id, "budget")]


def test_pack_ledgers_every_candidate_not_packed() -> None:
    chunks = [make_chunk(f"chunk {n % 4}", path=f"{n % 3}.md", start_line=n) for n in range(12)]
    hits = hits_of(*chunks, *chunks[:2], scores=[12.0 - n for n in range(14)])
    packet = _pack(hits, PackPolicy(evidence_tokens=60, min_score=0.5, neighbours=False))
    packed = [i.chunk.chunk_id for i in packet.items]
    assert len(packed) + len(packet.omitted) == len(hits)
    assert sorted(packed + [o.chunk_id for o in packet.omitted]) == sorted(
        h.chunk.chunk_id for h in hits
    )
    assert {o.reason for o in packet.omitted} <= {
        "duplicate",
        "same_text_as",
        "per_source_limit",
        "budget",
        "below_min_score",
    }


def _procedure() -> tuple[Chunk, Chunk, Chunk]:
    section = ("Deploy", "Rollback")
    intro = make_chunk(
        "## Rollback\n\n1. Open the deploy console.", heading_path=section, start_line=10
    )
    steps = make_chunk(
        "2. Press undo.\n3. Confirm the rollback.", heading_path=section, start_line=13
    )
    other = make_chunk(
        "## Monitoring\n\nWatch the graphs.", heading_path=("Deploy", "Monitoring"), start_line=16
    )
    return intro, steps, other


def test_pack_adds_the_start_of_a_procedure_before_a_mid_section_hit() -> None:
    intro, steps, other = _procedure()
    retriever = FakeRetriever([intro, steps, other])
    packet = _pack(hits_of(steps), PackPolicy(), retriever)
    assert [(i.label, i.chunk, i.neighbour) for i in packet.items] == [
        ("E1", intro, True),
        ("E2", steps, False),
    ]
    assert packet.tokens == sum(
        WordCounter().count(evidence_block(i.label, i.chunk, packet.nonce)) for i in packet.items
    )


def test_pack_adds_the_body_under_a_bare_heading() -> None:
    intro, steps, other = _procedure()
    packet = _pack(hits_of(intro), PackPolicy(), FakeRetriever([intro, steps, other]))
    assert [(i.chunk, i.neighbour) for i in packet.items] == [(intro, False), (steps, True)]


def test_pack_never_crosses_a_section_for_a_neighbour() -> None:
    intro, steps, other = _procedure()
    packet = _pack(hits_of(other), PackPolicy(), FakeRetriever([intro, steps, other]))
    assert [i.chunk for i in packet.items] == [other]


def test_pack_neighbours_respect_policy_switch_cap_and_budget() -> None:
    intro, steps, _ = _procedure()
    retriever = FakeRetriever([intro, steps])
    off = _pack(hits_of(steps), PackPolicy(neighbours=False), retriever)
    assert [i.chunk for i in off.items] == [steps]
    capped = _pack(hits_of(steps), PackPolicy(neighbour_cap=0), retriever)
    assert [i.chunk for i in capped.items] == [steps]
    tight = WordCounter().count(evidence_block("E1", steps, "")) + 3
    poor = _pack(hits_of(steps), PackPolicy(evidence_tokens=tight), retriever)
    assert [i.chunk for i in poor.items] == [steps]


def test_pack_neighbour_cap_limits_the_whole_packet() -> None:
    sections = []
    for n in range(3):
        heading = ("Guide", f"Part {n}")
        first = make_chunk(
            f"## Part {n}\n\n1. Begin part {n}.", heading_path=heading, start_line=n * 10 + 1
        )
        second = make_chunk(f"2. Finish part {n}.", heading_path=heading, start_line=n * 10 + 4)
        sections += [first, second]
    retriever = FakeRetriever(sections)
    packet = _pack(
        hits_of(*sections[1::2]), PackPolicy(neighbour_cap=2, per_source_limit=5), retriever
    )
    assert sum(i.neighbour for i in packet.items) == 2
    assert len(packet.items) == 5


def test_pack_later_hit_already_packed_as_neighbour_is_a_duplicate() -> None:
    intro, steps, _ = _procedure()
    packet = _pack(hits_of(steps, intro), PackPolicy(), FakeRetriever([intro, steps]))
    assert [i.chunk for i in packet.items] == [intro, steps]
    assert [(o.chunk_id, o.reason, o.detail) for o in packet.omitted] == [
        (intro.chunk_id, "duplicate", "E1")
    ]


def test_pack_headingless_text_needs_a_continuation_signal() -> None:
    def file_of(second_text: str) -> tuple[Chunk, Chunk]:
        path = f"{abs(hash(second_text))}.txt"
        first = make_chunk("Start here.", path=path, heading_path=(), start_line=1)
        return first, make_chunk(second_text, path=path, heading_path=(), start_line=3)

    for text, expect_neighbour in [
        ("and then restart the worker.", True),
        ("Step 3: restart the worker.", True),
        ("2) restart the worker.", True),
        ("1. Restart the worker.", False),
        ("Restart the worker.", False),
    ]:
        first, second = file_of(text)
        packet = _pack(hits_of(second), PackPolicy(), FakeRetriever([first, second]))
        assert (len(packet.items) == 2) is expect_neighbour, text


def test_pack_policy_from_config_takes_the_answer_section() -> None:
    answer = AnswerConfig(evidence_tokens=900, per_source_limit=3, min_score=1.5, neighbours=False)
    policy = PackPolicy.from_config(answer)
    assert policy == PackPolicy(
        evidence_tokens=900, per_source_limit=3, min_score=1.5, neighbours=False
    )
    assert PackPolicy.from_config(AnswerConfig()) == PackPolicy()
