"""Grounding: the evidence packet, the prompt, generation, verification and the answer pipeline."""
