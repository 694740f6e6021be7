"""The app/core.py that the server tests and the real-editor tests open: a parse function and a
Store whose `add` calls it (a hover target with a caller, a lens with a dependent)."""

APP_CORE = '''"""Core parsing."""


def parse(text):
    """Split a line into fields."""
    return text.split(",")


class Store:
    def __init__(self):
        self.rows = []

    def add(self, text):
        self.rows.append(parse(text))
        return len(self.rows)
'''
