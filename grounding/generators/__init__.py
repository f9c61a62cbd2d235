"""Generators: turn a question and its evidence into a GroundedResponse."""
