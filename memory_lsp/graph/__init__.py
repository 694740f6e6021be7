"""The graph layer: scores and impact, computed over what the store holds."""
