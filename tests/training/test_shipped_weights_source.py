"""The shipped reader weights record the fit training/train_reader.py makes by default: a file
fit with other data (a SQuAD sample, a seed) says so in its `trained_on`, and is caught here
as stale until the script's default run rewrites it."""

from __future__ import annotations

import pytest

from grounding.generators.reader_model import WEIGHTS, load_model
from training.train_reader import arguments, source


# Known stale (h1, sessions 10-11): the shipped file is the 1,500-question seed-7 fit of
# 6405340, which that commit's script reproduces. On today's train split its threshold 0.51
# refuses 90 of 107 uncovered questions, under the script's floor (91), so every refit of today's
# code, at any sample, picks 0.53-0.55 and answers 4-14 fewer; the shipped weights at 0.53 score
# as the refit does, on train and on the Django FAQ (docs/performance-reader.md, "h1, session
# 11"; training/refit_gap.py measures it). Strict: shipping a default fit makes this pass, and
# the marker must then go.
@pytest.mark.xfail(strict=True, reason="reader_weights.json predates the script's default fit")
def test_the_shipped_weights_come_from_the_scripts_default_fit() -> None:
    defaults = arguments([])
    assert defaults.out == WEIGHTS
    expected = source(defaults.squad, defaults.seed)
    trained_on = load_model(WEIGHTS).trained_on
    assert trained_on.startswith(f"{expected}; "), (
        f"{WEIGHTS.name} says it was fit on {trained_on!r}; the script's defaults read "
        f"{expected!r}: rebuild it with `python training/train_reader.py`"
    )


def test_a_sample_fit_names_its_sample_and_seed() -> None:
    assert source(1500, 7) != source(None, 7)
    assert "1500" in source(1500, 7) and "seed 7" in source(1500, 7)
    assert source(None, 7) == source(None, 8)
