"""Indexing: languages, discovery, extraction, resolution, git mining."""
