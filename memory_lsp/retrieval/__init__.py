"""Retrieval: offline embeddings, BM25, vectors and the graph fused into one ranking, context packing."""
