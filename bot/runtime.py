"""The composition root: builds the index, generator, pipeline and store from config and settings.

Only the CLI calls this; everything below receives its dependencies as arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.settings import Settings
from grounding.evidence import PackPolicy
from grounding.generators.base import Generator
from grounding.generators.extractive import ExtractiveGenerator
from grounding.pipeline import AnswerPipeline
from retrieval.chunks import Chunk
from retrieval.config import AnswerConfig, Config, source_url
from retrieval.errors import ConfigError
from retrieval.index import Index
from retrieval.tokens import TiktokenCounter

STORE_FILE = "answers.sqlite3"


def make_generator(answer: AnswerConfig, settings: Settings) -> Generator:
    """`auto` picks OpenAI when a key is set, else the offline extractive generator."""
    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if answer.generator == "extractive" or (answer.generator == "auto" and not api_key):
        return ExtractiveGenerator()
    if not api_key:
        raise ConfigError(
            "answer.generator is `openai` but OPENAI_API_KEY is not set: set the key, or use "
            "`generator: auto` to fall back to the offline extractive generator."
        )
    # Imported here so that the offline path never loads the openai package.
    from grounding.generators.openai_gen import OpenAIGenerator, make_openai_client

    client = make_openai_client(
        api_key, settings.openai_base_url, answer.timeout_seconds, answer.max_retries
    )
    return OpenAIGenerator(
        client, answer.model, api=answer.api, reasoning_effort=answer.reasoning_effort
    )


def url_resolver(config: Config) -> Callable[[Chunk], str | None]:
    collections = {c.name: c for c in config.collections}

    def url_for(chunk: Chunk) -> str | None:
        collection = collections.get(chunk.collection)
        if collection is None:
            return None
        return source_url(collection, chunk.path, chunk.start_line, chunk.end_line)

    return url_for


def make_pipeline(config: Config, index: Index, generator: Generator) -> AnswerPipeline:
    answer = config.answer
    policy = PackPolicy(
        evidence_tokens=answer.evidence_tokens,
        per_source_limit=answer.per_source_limit,
        min_score=answer.min_score,
        neighbours=answer.neighbours,
    )
    return AnswerPipeline(
        index, generator, TiktokenCounter(), policy, url_resolver(config), k=answer.k
    )


def store_path(config: Config) -> Path:
    return config.state_dir / STORE_FILE
