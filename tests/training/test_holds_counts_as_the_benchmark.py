"""train_reader.py chooses its threshold on, and writes into the weights file, answered right as
benchmarks/dev_questions.py counts it (grounding.evaluation.scoring.answered_right): an expected
file cited by one quoted passage and an expected string in any of them. It used to ask for both
in one passage, so its figure read 0.397 where the benchmark gave 0.406 on the same weights."""

from __future__ import annotations

from grounding.generators.extractive import judge_reading, shared_embedder
from grounding.generators.question import Kind
from grounding.generators.reader_model import load_model
from tests.grounding.test_reader import chunk, packet
from training.reader_data import Example, labelled
from training.reader_threshold import holds

CLIENT = "## Clients\n\nA client keeps its settings for every request it sends.\n"
TIMEOUTS = "## Timeouts\n\nA request times out after ten seconds of network inactivity.\n"
QUESTION = "how long until a client request times out?"


def quoted_right(paths: tuple[str, ...], strings: tuple[str, ...]) -> bool:
    """Whether `holds` counts the two passages quoted (every further passage let in) right."""
    example = Example("docs", QUESTION, True, paths, strings)
    evidence = packet(QUESTION, chunk(TIMEOUTS, "timeouts.md"), chunk(CLIENT, "client.md"))
    read_ = labelled(example, evidence, shared_embedder())
    ranked = judge_reading(read_.reading, load_model()).ranked
    return holds(read_, ranked, Kind.HOWTO in read_.reading.asked.kinds, ratio=0.0)


def test_the_file_cited_by_one_passage_and_the_string_in_another_count_right() -> None:
    assert quoted_right(("client.md",), ("ten seconds",))


def test_neither_the_file_alone_nor_the_string_alone_counts() -> None:
    assert not quoted_right(("client.md",), ("forty seconds",))
    assert not quoted_right(("other.md",), ("ten seconds",))
    assert quoted_right(("timeouts.md",), ("ten seconds",))
