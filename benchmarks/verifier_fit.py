"""Fit the verifier's content-coverage rule on the model answers' TRAIN split.

For every train claim (benchmarks/model_answers), the quotes are located in the corpus's own
chunks (the item a replay would cite: the first chunk of the answer's files holding the quote),
every check but coverage is run, and the share of the claim's content words found in each
candidate text (the quoted sentences, those with a sentence each side, the cited items whole) is
recorded. Each (text, threshold) is scored: faithful claims kept, and each unfaithful kind
dropped; then every pair (quoted >= q, cited >= c) is. The choice: the pair of the best
balanced accuracy (see `choose`), ties to the middle of the plateau. `wrong_evidence` is left
out: it fails the quote check before coverage, whatever the rule.
Run: python -m benchmarks.verifier_fit [--split train]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.model_answers.answers import CORPUS_NAMES, ModelClaim, load_answers
from benchmarks.model_answers.run import CHANNEL, TEAM, replay_config
from grounding.evidence import EvidenceItem
from grounding.verification.coverage import coverage
from grounding.verification.quotes import locate
from grounding.verification.response import support_of
from grounding.verification.support import Coverage, Support, check
from retrieval.build import build_index
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope

TEXTS: tuple[Coverage, ...] = ("quoted", "context", "cited")
THRESHOLDS = tuple(round(0.30 + 0.05 * i, 2) for i in range(14))  # 0.30 .. 0.95


@dataclass(frozen=True, slots=True)
class Measured:
    claim: ModelClaim
    other_problem: bool  # dropped before coverage (unquoted, a number, a negation, ...)
    shares: dict[str, float]  # coverage text -> share of content words found


def measure(split: str, state: Path) -> list[Measured]:
    out: list[Measured] = []
    for corpus in CORPUS_NAMES:
        config = replay_config(corpus, state / corpus, "chat")
        build_index(config)
        index = Index.load(config)
        scope = resolve_scope(config, TEAM, CHANNEL, ConversationKind.CHANNEL)
        chunks = index.chunks(scope)
        for answer in load_answers(corpus, split):
            files = set(answer.files)
            items = [
                EvidenceItem(f"E{n}", chunk, 1.0, False)
                for n, chunk in enumerate((c for c in chunks if c.path in files), start=1)
            ]
            out += [_measure(claim, items) for claim in answer.claims if _fitted(claim)]
    return out


def _fitted(claim: ModelClaim) -> bool:
    return claim.kind != "wrong_evidence"


def _measure(claim: ModelClaim, items: Sequence[EvidenceItem]) -> Measured:
    support, other_problem = supported(claim, items)
    if support is None:
        return Measured(claim, True, {})
    return Measured(claim, other_problem, _shares(claim.text, support))


def supported(claim: ModelClaim, items: Sequence[EvidenceItem]) -> tuple[Support | None, bool]:
    """The claim's support as a replay would give it (its first quote's item cited), None when
    its quotes are not located; and whether a check other than coverage drops it."""
    cited = [i for i in items if locate(claim.quotes[:1], [i], items)[1] is None][:1]
    located, problem = locate(claim.quotes, cited, items)
    if problem is not None:
        return None, True
    support = support_of(located, cited)
    return support, check(claim.text, support, quoted=0.0, cited=0.0).problem is not None


def _shares(text: str, support: Support) -> dict[str, float]:
    shares: dict[str, float] = {}
    for name in TEXTS:
        found, missing = coverage(text, support.coverage_text(name))
        total = len(found) + len(missing)
        shares[name] = len(found) / total if total else 1.0
    return shares


def rates(
    measured: Sequence[Measured], text: str, threshold: float, cited: float = 0.0
) -> dict[str, float]:
    """Rates by kind when a claim is kept at `threshold` of `text` and `cited` of its items."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for m in measured:
        kept = (
            not m.other_problem
            and m.shares.get(text, 1.0) >= threshold
            and m.shares.get("cited", 1.0) >= cited
        )
        key = "faithful" if m.claim.faithful else m.claim.kind
        counts[key][0] += kept if m.claim.faithful else not kept
        counts[key][1] += 1
    return {kind: good / total for kind, (good, total) in counts.items()}


def choose(measured: Sequence[Measured]) -> tuple[float, float, dict[str, float]]:
    """The (quoted, cited) thresholds of the best balanced accuracy: faithful kept and the mean
    over the unfaithful kinds of their dropped rate, weighed alike; ties to the middle of the
    plateau. A floor per kind would let one hard claim of a small kind push the thresholds to
    where few faithful claims survive."""
    scored = []
    for quoted in THRESHOLDS:
        for cited in THRESHOLDS:
            r = rates(measured, "quoted", quoted, cited)
            unfaithful = [v for k, v in r.items() if k != "faithful"]
            balanced = (r.get("faithful", 0.0) + sum(unfaithful) / len(unfaithful)) / 2
            scored.append((round(balanced, 6), quoted, cited, r))
    best = max(s[0] for s in scored)
    plateau = {(s[1], s[2]): s[3] for s in scored if s[0] == best}
    quoteds = sorted({q for q, _ in plateau})
    quoted = quoteds[(len(quoteds) - 1) // 2]
    citeds = sorted({c for q, c in plateau if q == quoted})
    cited = citeds[(len(citeds) - 1) // 2]
    return quoted, cited, plateau[quoted, cited]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test"), default="train")
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-model-answers"))
    args = parser.parse_args(argv)
    measured = measure(args.split, args.state)
    print(f"{len(measured)} claims of the {args.split} split")
    kinds = sorted({k for t in TEXTS for k in rates(measured, t, 0.5)})
    print("text     thr  " + " ".join(f"{k[:10]:>10}" for k in kinds))
    for text in TEXTS:
        for threshold in THRESHOLDS:
            r = rates(measured, text, threshold)
            cells = " ".join(f"{r.get(k, float('nan')):>10.2f}" for k in kinds)
            print(f"{text:<8} {threshold:.2f} {cells}")
    print("\nquoted >= q and cited >= c: faithful kept / mean unfaithful dropped")
    print("q\\c  " + " ".join(f"{c:>9.2f}" for c in THRESHOLDS))
    for q in THRESHOLDS:
        pairs = []
        for c in THRESHOLDS:
            r = rates(measured, "quoted", q, c)
            unfaithful = [v for k, v in r.items() if k != "faithful"]
            pairs.append(f"{r['faithful']:.2f}/{sum(unfaithful) / len(unfaithful):.2f}")
        print(f"{q:.2f} " + " ".join(f"{x:>9}" for x in pairs))
    quoted, cited, r = choose(measured)
    figures = ", ".join(f"{k} {v:.2f}" for k, v in sorted(r.items()))
    print(f"\nchosen: quoted sentences >= {quoted:.2f} and cited items >= {cited:.2f}: {figures}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
