"""Hand-written fakes shared by the ingestion tests."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class WordCounter:
    """A TokenCounter that counts whitespace-separated words and records what it was given."""

    seen: list[str] = field(default_factory=list)

    def count(self, text: str) -> int:
        self.seen.append(text)
        return len(text.split())
