"""A file's side-effect categories (network, filesystem, subprocess...): from what it imports and
what it calls, by each language's rules (index/languages.py `side_effects`)."""

from __future__ import annotations

import fnmatch
import functools
import re

from memory_lsp.index import languages


def side_effects(lang, imports, called) -> list[str]:
    found = []
    # module paths compare with "." separators (Rust `std::fs` is `std.fs` here)
    modules = {imp.module.strip("\"'<>").replace("::", ".") for imp in imports}
    modules |= {f"{imp.module}.{imp.name}".replace("::", ".") for imp in imports if imp.name}
    calls = set(called)
    for category, (import_roots, call_pattern) in _effect_rules(lang.name).items():
        if import_roots and any(import_roots.match(m) for m in modules):
            found.append(category)
        elif call_pattern and any(call_pattern.match(c) for c in calls):
            found.append(category)
    return found


@functools.lru_cache(maxsize=None)
def _effect_rules(lang_name: str) -> dict:
    """Per category: one compiled regex for the import roots (a module is one of them, or inside
    one: a root, then "." or "/"; one match per module, not a scan of the roots) and one for all
    call patterns."""
    rules = {}
    for category, spec in languages.registry()[lang_name].side_effects.items():
        calls, roots = spec.get("calls", ()), sorted({r.replace("::", ".") for r in spec.get("imports", ())})
        pattern = re.compile("|".join(fnmatch.translate(c) for c in calls)) if calls else None
        rules[category] = (re.compile(f"(?:{'|'.join(map(re.escape, roots))})(?:[./]|$)") if roots else None, pattern)
    return rules
