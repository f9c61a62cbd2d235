"""What content coverage compares, as `support.coverage_texts` gives it to measuring scripts
(benchmarks/coverage_model.py): the same texts `check` counts words in. Made-up sentences, no
benchmark item."""

from __future__ import annotations

from grounding.verification.coverage import coverage
from grounding.verification.support import Support, check, coverage_texts


def test_the_counted_claim_leaves_out_a_condition_restating_the_default() -> None:
    support = Support("By default jobs run in UTC.", "Scheduling\n\nBy default jobs run in UTC.")
    said, quoted, cited = coverage_texts(
        "Unless you configure it otherwise, jobs run in UTC.", support
    )
    assert said == "jobs run in UTC."
    assert quoted == "By default jobs run in UTC."
    assert cited.startswith("Scheduling")


def test_the_quoted_text_carries_the_headings_the_quotes_are_under() -> None:
    item = "Backup retention\n\nIt is kept for a week."
    support = Support("It is kept for a week.", item, under="Backup retention")
    said, quoted, _ = coverage_texts("Backup retention is a week.", support)
    found, missing = coverage(said, quoted)
    assert "retention" in found and not missing
    assert check("Backup retention is a week.", support).problem is None
    # Without the heading the claim's own words are missing, and check says so.
    bare = Support("It is kept for a week.", item)
    _, quoted_bare, _ = coverage_texts("Backup retention is a week.", bare)
    assert "retention" in coverage(said, quoted_bare)[1]
    assert check("Backup retention is a week.", bare).problem is not None
