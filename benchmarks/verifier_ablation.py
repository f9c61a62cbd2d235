"""Leave one check out: what each of the verifier's checks costs and earns on the TRAIN split.

The model answers (benchmarks/model_answers) are replayed once through `docbot ask`'s path (chat
API), recording the support every claim was checked against. Then each check of
`grounding.verification.support` is switched off in turn and every claim re-checked on its
recorded support: the faithful claims that check alone drops (kept without it) and the
unfaithful claims only it drops (kept without it), per batch. A batch written after a check
came is the closest thing to a held-out set the check has: a check that drops faithful claims
of later batches and no unfaithful claim no other check drops reads the answers it was made
for, not the docs. Train only, like `--misses`: nothing here may look at the test split.
Run: python -m benchmarks.verifier_ablation [--batch first s8 s9] [--list CHECK]
"""

from __future__ import annotations

import argparse
import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.corpora import corpora_absent
from benchmarks.model_answers.answers import BATCHES, CORPUS_NAMES, ModelAnswer, flat, load_answers
from benchmarks.model_answers.run import replay, replay_config
from grounding.verification import response
from grounding.verification import support as support_module
from grounding.verification.support import Support, check
from retrieval.index import build_index

# Each check by the name `support.check` calls it by, and what it returns when it finds nothing.
CHECKS: dict[str, object] = {
    "token_problem": None,
    "number_problem": None,
    "value_problem": None,
    "default_problem": None,
    "unit_problem": None,
    "bare_unit_problem": None,
    "opposite_problem": None,
    "comparison_problem": None,
    "order_problem": None,
    "reversed_problem": None,
    "addition_problem": None,
    "bound_problem": None,
    "range_problem": None,
    "binding_problem": None,
    "partitive_problem": None,
    "setting_problem": None,
    "attribution_problem": None,
    "added_negation": None,
    "denied_but_stated": None,
    "dropped_negation": None,
    "negation_disagrees": False,
    "coverage_problem": None,
    "_consequence_problem": None,
}


@dataclass(frozen=True, slots=True)
class Checked:
    answer: ModelAnswer
    kind: str  # faithful, or the unfaithful kind
    text: str
    support: Support
    problem: str | None  # with every check on


def record(batches: tuple[str, ...], state: Path) -> list[Checked]:
    """Every train claim that reached `check` in a replay, with the support it was given."""
    seen: dict[str, Support] = {}
    real = response.check

    def recording(text: str, support: Support, **kwargs: float) -> support_module.Verdict:
        seen[flat(text)] = support
        return real(text, support, **kwargs)

    out: list[Checked] = []
    response.check = recording  # type: ignore[assignment]  # measuring, not shipping
    try:
        for corpus in CORPUS_NAMES:
            answers = load_answers(corpus, "train", batches)
            if not answers:
                continue
            config = replay_config(corpus, state / corpus, "chat")
            build_index(config)
            seen.clear()
            replay(config, answers)
            for answer in answers:
                for claim in answer.claims:
                    found = seen.get(flat(claim.text))
                    if found is not None:
                        problem = real(claim.text, found).problem
                        out.append(Checked(answer, claim.kind, claim.text, found, problem))
    finally:
        response.check = real
    return out


@contextlib.contextmanager
def without(name: str) -> Iterator[None]:
    """`support.check` with the check `name` finding nothing (the coverage thresholds at 0)."""
    original = getattr(support_module, name)
    nothing = CHECKS[name]

    def off(*args: object, **kwargs: object) -> object:
        return nothing

    setattr(support_module, name, off)
    try:
        yield
    finally:
        setattr(support_module, name, original)


def ablate(checked: Sequence[Checked], name: str) -> list[Checked]:
    """The claims dropped now and kept with `name` off."""
    dropped = [c for c in checked if c.problem is not None]
    with without(name):
        return [c for c in dropped if check(c.text, c.support).problem is None]


def report(checked: Sequence[Checked], batches: tuple[str, ...], listed: str | None) -> None:
    faithful = Counter(c.answer.batch for c in checked if c.kind == "faithful")
    print(f"{len(checked)} train claims reached the checks; faithful by batch: {dict(faithful)}")
    head = " ".join(f"{b:>11}" for b in batches)
    print(f"\n{'check off':<22} faithful kept / unfaithful kept, by batch\n{'':<22} {head}")
    for name in CHECKS:
        freed = ablate(checked, name)
        if not freed:
            continue
        cells = []
        for b in batches:
            f = sum(c.kind == "faithful" and c.answer.batch == b for c in freed)
            u = sum(c.kind != "faithful" and c.answer.batch == b for c in freed)
            cells.append(f"{f:>5} / {u:<4}")
        kinds = Counter(c.kind for c in freed if c.kind != "faithful")
        print(f"{name:<22} {' '.join(cells)}  {dict(kinds)}")
        if name == listed:
            for c in freed:
                print(f"    {c.kind} {c.answer.batch} {c.answer.id}: {c.text!r}")
                print(f"      ({c.problem})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", choices=BATCHES, nargs="*", default=list(BATCHES))
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-model-answers"))
    parser.add_argument("--list", choices=CHECKS, help="list the claims this check alone drops")
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    batches = tuple(args.batch)
    report(record(batches, args.state), batches, args.list)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
