"""Could a claim's length against its quotes' tell a translation from a claim that adds content,
for claims in another language than their evidence (whose words the verifier cannot read)?

For every claim of the model answers (benchmarks/model_answers) in Spanish or Chinese whose
quotes are located (as benchmarks/verifier_fit.py locates them), the claim's length outside its
code spans (letter runs for Spanish, CJK characters for Chinese) over the quoted sentences' words
outside theirs. Prints each claim's ratio by language and kind, sorted, and per language the
largest ratio of a faithful claim: a threshold fit on train would sit there, and drops only what
lies above it. Deterministic; nothing is written.
Run: python -m benchmarks.foreign_lengths [--split train]
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Sequence
from pathlib import Path

from benchmarks.corpora import corpora_absent
from benchmarks.model_answers.answers import CORPUS_NAMES, load_answers
from benchmarks.model_answers.run import CHANNEL, TEAM, replay_config
from benchmarks.verifier_fit import supported
from grounding.evidence import EvidenceItem
from grounding.verification.language import in_other_language
from retrieval.build import build_index
from retrieval.index import Index
from retrieval.scopes import ConversationKind, resolve_scope
from retrieval.text import has_cjk
from retrieval.text.markup import CODE_SPAN
from retrieval.text.tokenizer import LETTER_RUN

_CODE = re.compile(CODE_SPAN)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def language(claim: str) -> str:
    """zh, es or en, as the verifier reads a claim against English evidence."""
    if not in_other_language(claim, "The evidence is in English."):
        return "en"
    return "zh" if has_cjk(_CODE.sub(" ", claim)) else "es"


def length(text: str, lang: str) -> int:
    """Words (letter runs) of `text` outside code, or its CJK characters for Chinese."""
    prose = _CODE.sub(" ", text)
    return len(_CJK.findall(prose)) if lang == "zh" else len(LETTER_RUN.findall(prose))


def measure(split: str, state: Path) -> list[tuple[str, str, float, str]]:
    """(language, kind, ratio, claim) for every located claim in another language."""
    rows = []
    for corpus in CORPUS_NAMES:
        config = replay_config(corpus, state / corpus, "chat")
        build_index(config)
        index = Index.load(config)
        chunks = index.chunks(resolve_scope(config, TEAM, CHANNEL, ConversationKind.CHANNEL))
        for answer in load_answers(corpus, split):
            files = set(answer.files)
            items = [
                EvidenceItem(f"E{n}", chunk, 1.0, False)
                for n, chunk in enumerate((c for c in chunks if c.path in files), start=1)
            ]
            for claim in answer.claims:
                lang = language(claim.text)
                support = supported(claim, items)[0] if lang != "en" else None
                if support is None:
                    continue
                ratio = length(claim.text, lang) / max(1, length(support.quoted, "en"))
                rows.append((lang, claim.kind, ratio, f"{answer.id}: {claim.text}"))
    return rows


def report(rows: Sequence[tuple[str, str, float, str]]) -> str:
    lines = [
        f"{lang} {kind:18} {ratio:5.2f}  {text[:90]}" for lang, kind, ratio, text in sorted(rows)
    ]
    for lang in sorted({r[0] for r in rows}):
        faithful = [r[2] for r in rows if r[0] == lang and r[1] == "faithful"]
        outside = sorted(r[2] for r in rows if r[0] == lang and r[1] == "outside_knowledge")
        above = [r for r in outside if faithful and r > max(faithful)]
        lines.append(
            f"{lang}: {len(faithful)} faithful, largest ratio {max(faithful, default=0):.2f}; "
            f"outside knowledge {', '.join(f'{r:.2f}' for r in outside)}: {len(above)} above it"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("train", "test", "all"), default="train")
    parser.add_argument("--state", type=Path, default=Path("/tmp/docbot-model-answers"))
    args = parser.parse_args(argv)
    if corpora_absent():
        return 2
    print(report(measure(args.split, args.state)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
