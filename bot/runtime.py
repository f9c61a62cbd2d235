"""The composition root: builds the index, generator, pipeline and store from config and settings.

Only the CLI calls this; everything below receives its dependencies as arguments.
"""

from __future__ import annotations

from collections.abc import Callable

from bot.settings import Settings
from grounding.deadline import Clock
from grounding.evidence import PackPolicy
from grounding.gate import NearnessGate, fitted_min_scope, fitted_thresholds, setup_key
from grounding.generators.base import Generator
from grounding.generators.extractive import ExtractiveGenerator
from grounding.generators.response_formats import PROCESS_MEMORY, FormatMemory
from grounding.generators.structured import ModelBacked
from grounding.pipeline import AnswerPipeline
from grounding.rewrite import ModelRewriter, QueryRewriter
from retrieval.config import AnswerConfig, Config
from retrieval.errors import ConfigError
from retrieval.index import Index
from retrieval.links import url_resolver
from retrieval.tokens import TiktokenCounter


def make_generator(
    answer: AnswerConfig, settings: Settings, memory: FormatMemory = PROCESS_MEMORY
) -> Generator:
    """`auto` picks OpenAI when a key is set, else the offline extractive generator. `memory`
    is what was found about model servers' response formats: the process's own, so a reload of
    docbot.yml does not detect a server again (tests pass a fresh one)."""
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

    return OpenAIGenerator(
        make_openai_client(api_key, settings.openai_base_url),
        answer.model,
        api=answer.api,
        response_format=answer.response_format,
        memory=memory,
        reasoning_effort=answer.reasoning_effort,
        timeout_seconds=answer.timeout_seconds,
        max_retries=answer.max_retries,
    )


def make_pipeline(
    config: Config, index: Index, generator: Generator, clock: Clock | None = None
) -> AnswerPipeline:
    """`clock` times the answer's deadline (tests pass a fake one; the system clock otherwise)."""
    policy = PackPolicy.from_config(config.answer)
    return AnswerPipeline(
        index,
        generator,
        TiktokenCounter(),
        policy,
        url_resolver(config, index.revisions()),
        k=config.answer.k,
        deadline_seconds=config.answer.deadline_seconds,
        clock=clock,
        rewriter=make_rewriter(config.answer, generator),
        rewrite_seconds=config.answer.rewrite_timeout_seconds,
        gate=make_gate(config, index),
    )


def make_gate(config: Config, index: Index) -> NearnessGate | None:
    """The gate before the generator with the thresholds fit for this index's search setup."""
    if not config.answer.gate:
        return None
    dense = index.dense_model is not None
    return NearnessGate(
        fitted_thresholds(),
        lambda scope: setup_key(index.engine_name(scope), dense),
        index,
        fitted_min_scope(),
    )


def make_rewriter(answer: AnswerConfig, generator: Generator) -> QueryRewriter | None:
    """The query rewrite on the generator's own model; none offline or with `rewrite: off`."""
    if answer.rewrite == "off" or not isinstance(generator, ModelBacked):
        return None
    return ModelRewriter(generator.structured, mode=answer.rewrite)


def pipeline_loader(settings: Settings) -> Callable[[Config], AnswerPipeline]:
    """Index + generator + pipeline for a config: at start-up, and again by `docbot serve`
    whenever docbot.yml or the index changes (bot/live.py)."""

    def load(config: Config) -> AnswerPipeline:
        return make_pipeline(config, Index.load(config), make_generator(config.answer, settings))

    return load
