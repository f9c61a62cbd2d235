"""Running a question set through the answer pipeline and scoring it (`docbot eval`, benchmarks)."""
