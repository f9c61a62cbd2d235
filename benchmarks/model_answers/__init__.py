"""Hand-written model answers replayed through the real answer path: kept/dropped by kind.

`python -m benchmarks.model_answers --split train|test [--api chat|responses]`; see README.md
in this folder for the set's format and split, and docs/performance-verifier.md "Model answers".
"""
