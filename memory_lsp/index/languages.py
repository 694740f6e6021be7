"""The language registry: one `grammars/<lang>/language.json` plus query files per language.

A language is data: the grammar's Python module, file extensions, which resolver family
interprets its imports, test-file rules and side-effect tables. Queries are compiled lazily
and once per process (workers compile their own).
"""

from __future__ import annotations

import fnmatch
import functools
import importlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path


def grammars_dir() -> Path:
    """Find `grammars/`: inside the installed package, or at the top of a source checkout."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "grammars", here.parent / "grammars"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("memory-lsp: the grammars/ folder is missing from this installation")


@dataclass(frozen=True)
class Language:
    name: str
    grammar: str  # "module:function" returning the tree-sitter language pointer
    extensions: tuple[str, ...]
    resolver: str
    class_kinds: tuple[str, ...] = ("class",)
    self_names: tuple[str, ...] = ()
    line_comment: str = "//"  # what starts a comment to the end of the line
    test_files: tuple[str, ...] = ()
    side_effects: dict = field(default_factory=dict, hash=False, compare=False)
    test_asserts_same_dir: bool = False
    implicit_self: bool = False  # a bare `f()` inside a class may call its own method (Java, C++, Ruby)

    def is_test(self, relpath: str) -> bool:
        """Test rules: a bare pattern matches the file name; `dir/*` matches any folder named dir."""
        name = relpath.rsplit("/", 1)[-1]
        parts = relpath.split("/")[:-1]
        for pattern in self.test_files:
            if pattern.endswith("/*"):
                if pattern[:-2] in parts:
                    return True
            elif "/" in pattern:
                if fnmatch.fnmatchcase(relpath, pattern):
                    return True
            elif fnmatch.fnmatchcase(name, pattern):
                return True
        return False


@functools.lru_cache(maxsize=1)
def registry() -> dict[str, Language]:
    langs = {}
    for spec in sorted(grammars_dir().glob("*/language.json")):
        data = json.loads(spec.read_text(encoding="utf-8"))
        data["extensions"] = tuple(data["extensions"])
        for key in ("class_kinds", "self_names", "test_files"):
            if key in data:
                data[key] = tuple(data[key])
        langs[data["name"]] = Language(**data)
    return langs


@functools.lru_cache(maxsize=1)
def by_extension() -> dict[str, Language]:
    table = {}
    for lang in registry().values():
        for ext in lang.extensions:
            table[ext] = lang
    return table


def language_for(path: str) -> Language | None:
    return by_extension().get(os.path.splitext(path)[1].lower())


@functools.lru_cache(maxsize=1)
def families() -> dict[str, str]:
    """Each language's family (its resolver): a call is guessed, and counted unresolved, within its
    caller's family only (TypeScript and JavaScript are one, C and C++ another)."""
    return {lang.name: lang.resolver for lang in registry().values()}


@functools.lru_cache(maxsize=None)
def ts_language(name: str):
    import tree_sitter

    module_name, func = registry()[name].grammar.split(":")
    return tree_sitter.Language(getattr(importlib.import_module(module_name), func)())


@functools.lru_cache(maxsize=None)
def tags_query(name: str):
    import tree_sitter

    source = (grammars_dir() / name / "tags.scm").read_text(encoding="utf-8")
    return tree_sitter.Query(ts_language(name), source)


@functools.lru_cache(maxsize=None)
def types_receivers(name: str) -> bool:
    """Receiver types are given where the language's query captures bindings (`@bind`)."""
    query = tags_query(name)
    return any(query.capture_name(i) == "bind" for i in range(query.capture_count))


@functools.lru_cache(maxsize=None)
def parser(name: str):
    import tree_sitter

    return tree_sitter.Parser(ts_language(name))


def classify(path: str) -> str | None:
    """The language name for a path: a code language, "markdown", "rst", or None."""
    from memory_lsp.index.docs import DOC_EXTENSIONS

    ext = os.path.splitext(path)[1].lower()
    lang = by_extension().get(ext)
    return lang.name if lang else DOC_EXTENSIONS.get(ext)
