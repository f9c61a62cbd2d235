"""Scripts that measure docbot and print numbers; run each from the repo root."""
