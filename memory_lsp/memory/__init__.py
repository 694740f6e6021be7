"""Memories: the event log, the model, citations, capture, import/export and the secret scanner."""
