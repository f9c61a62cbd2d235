"""The embedder caps its tokenizer's BPE word cache through a private tokenizers method, looked up
so that a missing one costs only memory. This pins that the installed tokenizers still has it:
an upgrade that drops it fails here instead of silently growing `docbot index` by ~150 MB."""

from __future__ import annotations

from retrieval.embeddings import LazyTokenizer, load_embedder


def test_the_installed_tokenizer_takes_the_bpe_cache_cap() -> None:
    tokenizer = load_embedder()._tokenizer
    assert isinstance(tokenizer, LazyTokenizer)  # parsed when first used: its model is then set
    model = getattr(tokenizer.loaded(), "model", None)
    assert callable(getattr(model, "_resize_cache", None)), (
        f"tokenizers {type(model).__module__} no longer has BPE._resize_cache: "
        "retrieval/embeddings.py's cap on the word cache is not applied"
    )
