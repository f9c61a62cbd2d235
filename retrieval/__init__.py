"""Retrieval: collections, files, chunks, the search index and access scopes."""
