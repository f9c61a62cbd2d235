"""Reading a packet against a question: the features of every answer unit and of the question.

Unit features say how well a unit answers: word coverage weighted by rarity over the packet
(its own words in full, its headings at half), semantic similarity of the question to the unit
and to its headings (offline static embeddings), the question's code names found in it,
BM25 inside the packet, the item's retrieval score, and whether the unit holds what the
question's kind asks for (a value, a name, a way to do it), and whether it is a release's own
note (what changed then, not how things are now). Question features say whether the
packet answers at all: how good the best unit is, how long the question is, how heavy
and how rare the question's missing words are, and whether the other likely units agree on the
best unit's file. `grounding/generators/reader_model.py` turns
them into a ranking and an answered / insufficient decision with weights trained by
`training/train_reader.py`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Protocol

import numpy as np
import numpy.typing as npt

from grounding.evidence import EvidencePacket
from grounding.gate import idf
from grounding.generators.question import Asked, Kind, ask, handles
from grounding.generators.segmentation import UnitKind
from grounding.generators.units import Candidate, candidates
from retrieval.embeddings import Embedder
from retrieval.errors import DocbotError
from retrieval.text.markup import CODE_SPAN, LIST_MARKER

Matrix = npt.NDArray[np.float64]


class ReaderEmbedder(Embedder, Protocol):
    def pieces(self, words: Sequence[str]) -> list[int]:
        """Tokenizer pieces per word: one for a common word, several for a rare name."""
        ...


UNIT_FEATURES = (
    "coverage",
    "coverage_with_headings",
    "semantic",
    "semantic_headings",
    "semantic_with_headings",
    "semantic_window",
    "coverage_window",
    "opens_section",
    "identifiers",
    "bm25",
    "rank",
    "value_has_number",
    "howto_shows_how",
    "name_has_code",
    "is_code",
    "length",
    "release_note",
)
QUESTION_FEATURES = (
    "best_logit",
    "margin",
    "best_semantic",
    "missing_heaviest",
    "missing_rare",
    "terms",
    "foreign",
    "file_agreement",
)
# The one feature a packet may leave undefined (NaN; the answerer reads it as its mean). A NaN
# anywhere else is a bug in a feature's code, and `_defined` says so instead of letting
# `Linear.logits` quietly weigh it as nothing.
UNDEFINED_FEATURES = frozenset({"file_agreement"})

# The features' own constants are set by hand, not fit: training/train_reader.py fits only the
# weights that combine the features (reader_weights.json), on its train split, and searching
# these too would mean re-reading every training packet per value. No script searched them;
# they are round values chosen when the features were written: BM25's usual k1 and b; a word
# found only in the headings counts half (it says what the section is about, not that this unit
# answers); a code name no evidence has weighs double (a missing name is a stronger sign of a
# miss than a missing word); a missing word of 4+ tokenizer pieces is as rare as it gets
# (_RARE_PIECES); a unit's length feature is 1 at about 60 words (_LENGTH_WORDS).
_BM25_K1 = 1.2
_BM25_B = 0.75
_HEADING_SHARE = 0.5
_ABSENT_NAME_FACTOR = 2.0
_RARE_PIECES = 3  # pieces beyond the first of the rarest word scale 0..1
_LENGTH_WORDS = 60.0
_NUMBER = re.compile(r"(?<![\w.])\d")
_NUMBER_WORD = re.compile(r"v?[\d.,%]*\d[\d.,%]*s?")  # 3, 5000, 0.28, 1.2.3, 503s, 10%
# A release's own page or section: a file named for a version ("releases/2.1.txt",
# "whatsnew/3.12.rst") or a heading that starts with one (a change log's "## 1.4.0").
_VERSION_NAMED = re.compile(r"(?:^|[\s_\-])v?\d+\.\d+")
_VERSION_HEADED = re.compile(r"\s*\[?v?\d+\.\d+")
_CODE_TEXT = re.compile(rf"{CODE_SPAN}|\b\w+_\w+\b|\b[a-z]+[A-Z]\w*\b|\w\.\w+\(")


@dataclass(frozen=True, slots=True)
class Reading:
    asked: Asked
    pool: tuple[Candidate, ...]
    units: Matrix  # (len(pool), len(UNIT_FEATURES))
    weights: dict[str, float]  # question term -> weight
    missing_heaviest: float
    # The most tokenizer pieces of a question word no unit has, 0..1; numbers left out (read).
    missing_rare: float


def read(packet: EvidencePacket, embedder: ReaderEmbedder) -> Reading:
    pool = candidates(packet)
    vocabulary = {t for c in pool for t in c.terms} | {t for c in pool for t in c.context}
    held = set[str]().union(*(handles(c.unit.text) for c in pool))
    asked = ask(packet.question, vocabulary, held)
    weights = _weights(asked, pool)
    total = sum(weights.values()) or 1.0
    absent = [t for t in weights if t not in vocabulary]
    missing = [weights[t] for t in absent]
    # The tokenizer cuts digits one by one, so a number ("5000", "503s", "0.28") looked as rare
    # as the rarest name; a question's own numbers say nothing of what the docs cover.
    names = [t for t in (*absent, *asked.dropped) if not _NUMBER_WORD.fullmatch(t)]
    pieces = embedder.pieces(names) if names else []
    rare = max(((p - 1) / _RARE_PIECES for p in pieces), default=0.0)
    units = _unit_features(asked, pool, weights, embedder)
    return Reading(
        asked,
        pool,
        units,
        weights,
        max(missing, default=0.0) / total,
        min(rare, 1.0),
    )


def question_features(reading: Reading, logits: npt.NDArray[np.float64]) -> Matrix:
    """One row of QUESTION_FEATURES, given the ranker's logit for each unit."""
    if not len(reading.pool):
        return np.zeros(len(QUESTION_FEATURES))
    order = np.argsort(-logits, kind="stable")
    best = int(order[0])
    # A lone unit's margin is set by hand at 5 logits: a clear lead, as no rival was found.
    second = float(logits[order[1]]) if len(order) > 1 else float(logits[best]) - 5.0
    u = reading.units
    # Whether the other likely units agree on the best unit's file: the share of the ranker's
    # probability outside the best unit that lies in that file, less the share of the other
    # units that are in it (a file filling most of the packet gathers probability by its size
    # alone). Where the docs answer, the units around the answer are likely too; a lone match
    # in a question they do not cover leaves the rest spread as the units are. Undefined (NaN:
    # the answerer reads it as its mean) when no unit lies outside the best unit's file, as in
    # a one-document scope: there is nothing to agree or disagree with.
    others = np.exp(logits - logits.max())
    others[best] = 0.0
    best_file = _file(reading.pool[best])
    in_file = np.array([_file(c) == best_file for c in reading.pool])
    in_file[best] = False
    total, outside = float(others.sum()), len(order) - 1 - int(in_file.sum())
    agreement = (
        float(others[in_file].sum()) / total - float(in_file.sum()) / (len(order) - 1)
        if total > 0 and outside > 0
        else math.nan
    )
    row = np.array(
        [
            float(logits[best]),
            float(logits[best]) - second,
            float(u[:, UNIT_FEATURES.index("semantic")].max()),
            reading.missing_heaviest,
            reading.missing_rare,
            math.log1p(len(reading.weights)),
            float(reading.asked.foreign),
            agreement,
        ]
    )
    return _defined(row, QUESTION_FEATURES)


def _file(c: Candidate) -> tuple[str, str]:
    return c.item.chunk.collection, c.item.chunk.path


def _weights(asked: Asked, pool: Sequence[Candidate]) -> dict[str, float]:
    """Each question term's rarity over the packet's units; a word no unit has weighs most."""
    n = max(len(pool), 1)
    df: Counter[str] = Counter()
    for c in pool:
        df.update(c.terms.keys())
    absent = idf(n, 0)
    idents = set(asked.identifiers)
    out = {}
    for t in asked.terms:
        if df[t]:
            out[t] = idf(n, df[t])
        else:
            out[t] = absent * (_ABSENT_NAME_FACTOR if t in idents else 1.0)
    return out


def _unit_features(
    asked: Asked, pool: Sequence[Candidate], weights: dict[str, float], embedder: Embedder
) -> Matrix:
    if not pool:
        return np.zeros((0, len(UNIT_FEATURES)))
    total = sum(weights.values()) or 1.0
    headings = sorted({c.headings for c in pool})
    vectors = embedder.embed([asked.reading, *(c.unit.text for c in pool), *headings])
    question = vectors[0]
    unit_vectors = vectors[1 : 1 + len(pool)]
    heading_vectors = dict(zip(headings, vectors[1 + len(pool) :], strict=True))
    semantic = unit_vectors @ question
    by_heading = {h: float(v @ question) for h, v in heading_vectors.items()}
    with_headings = _cosines(
        unit_vectors + np.array([heading_vectors[c.headings] for c in pool]), question
    )
    neighbours = _neighbours(pool)
    window = _cosines(
        np.array([unit_vectors[[i, *n]].sum(axis=0) for i, n in enumerate(neighbours)]), question
    )
    avg_len = sum(sum(c.terms.values()) for c in pool) / len(pool) or 1.0
    bm25 = np.array([_bm25(c.terms, weights, avg_len) for c in pool])
    bm25 = bm25 / (bm25.max() or 1.0)
    rows = []
    for i, c in enumerate(pool):
        own = sum(w for t, w in weights.items() if t in c.terms)
        around = c.context | c.lead_in
        near = sum(w for t, w in weights.items() if t not in c.terms and t in around)
        nearby = set(c.terms).union(*(pool[j].terms for j in neighbours[i]))
        in_window = sum(w for t, w in weights.items() if t in nearby)
        lowered = c.unit.text.lower()
        idents = [x for x in asked.identifiers if x in lowered]
        words = len(c.unit.text.split())
        rows.append(
            [
                own / total,
                (own + _HEADING_SHARE * near) / total,
                float(semantic[i]),
                by_heading[c.headings],
                float(with_headings[i]),
                float(window[i]),
                in_window / total,
                float(
                    i == 0
                    or pool[i - 1].headings != c.headings
                    or pool[i - 1].item_index != c.item_index
                ),
                len(idents) / len(asked.identifiers) if asked.identifiers else 0.0,
                float(bm25[i]),
                1.0 / (1.0 + c.item_index),
                float(
                    Kind.VALUE in asked.kinds and bool(_NUMBER.search(LIST_MARKER.sub("", lowered)))
                ),
                float(Kind.HOWTO in asked.kinds and _shows_how(c)),
                float(Kind.NAME in asked.kinds and bool(_CODE_TEXT.search(c.unit.text))),
                float(c.unit.kind is UnitKind.CODE),
                min(math.log1p(words) / math.log(_LENGTH_WORDS), 1.5),
                float(_release_note(c)),
            ]
        )
    return _defined(np.array(rows, dtype=np.float64), UNIT_FEATURES)


def _defined(features: Matrix, names: tuple[str, ...]) -> Matrix:
    """`features` (a row or rows over `names`) as they are; DocbotError when a feature that is
    always defined came out NaN."""
    missing = np.isnan(features).reshape(-1, len(names)).sum(axis=0) > 0
    broken = [n for i, n in enumerate(names) if missing[i] and n not in UNDEFINED_FEATURES]
    if broken:
        raise DocbotError(f"the reader computed no value for {', '.join(broken)}: a bug in docbot")
    return features


def _release_note(c: Candidate) -> bool:
    """The unit tells what changed in one release, by how its document or section is named."""
    chunk = c.item.chunk
    headings = (*chunk.heading_path, c.unit.section)
    stem = PurePosixPath(chunk.path).stem
    return bool(_VERSION_NAMED.search(stem)) or any(_VERSION_HEADED.match(h) for h in headings)


def _cosines(vectors: Matrix, question: npt.NDArray[np.float32]) -> Matrix:
    norms = np.linalg.norm(vectors, axis=1)
    norms[norms == 0] = 1.0
    result: Matrix = (vectors @ question) / norms
    return result


def _neighbours(pool: Sequence[Candidate]) -> list[list[int]]:
    """Indexes of the units right before and after each one in its chunk."""
    out: list[list[int]] = []
    for i, c in enumerate(pool):
        near = [
            j
            for j in (i - 1, i + 1)
            if 0 <= j < len(pool)
            and pool[j].item_index == c.item_index
            and abs(pool[j].unit_index - c.unit_index) <= 2
        ]
        out.append(near)
    return out


def _shows_how(c: Candidate) -> bool:
    """Code, a step of a numbered list, or prose right before code or a list."""
    if c.unit.kind is UnitKind.CODE or c.steps is not None:
        return True
    following = c.units[c.unit_index + 1 : c.unit_index + 3]
    return any(u.kind in (UnitKind.CODE, UnitKind.ITEM) for u in following[:1]) or (
        c.unit.text.rstrip().endswith(":") and bool(following)
    )


def _bm25(tf: Counter[str], weights: dict[str, float], avg_len: float) -> float:
    length = sum(tf.values())
    norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * length / avg_len)
    return sum(w * tf[t] * (_BM25_K1 + 1) / (tf[t] + norm) for t, w in weights.items() if tf[t])
