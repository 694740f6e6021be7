"""The server's settings: one typed tree, read from `initializationOptions` and from
`workspace/configuration` (section "memory"). Keys are camelCase as editors write them.

A bad value never stops the server: it falls back to the default and `parse` returns one line
per problem, which the server shows to the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace


@dataclass(frozen=True)
class Diagnostics:
    enabled: bool = True
    max_per_file: int = 20  # quiet by default: a file never gets more than this many
    min_confidence: float = 0.3  # memories whose effective confidence fell below stay silent
    citations: bool = True  # drifted and orphaned citations


@dataclass(frozen=True)
class Lenses:
    enabled: bool = True
    depth: int = 2  # how far "dependents" reaches


@dataclass(frozen=True)
class Hover:
    enabled: bool = True
    max_memories: int = 6
    depth: int = 2


@dataclass(frozen=True)
class Indexing:
    excludes: tuple[str, ...] = ()  # extra .gitignore-style globs
    workers: int = 2
    watch: bool = True  # watch the disk for changes made outside the editor
    debounce_ms: int = 400  # wait this long after the last keystroke before re-indexing a buffer


@dataclass(frozen=True)
class Embeddings:
    background: bool = True  # embed memories and chunks in the background after indexing


@dataclass(frozen=True)
class ServerSettings:
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    code_lens: Lenses = field(default_factory=Lenses)
    hover: Hover = field(default_factory=Hover)
    indexing: Indexing = field(default_factory=Indexing)
    embeddings: Embeddings = field(default_factory=Embeddings)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_LIMITS = {"max_per_file": (0, 1000), "min_confidence": (0.0, 1.0), "depth": (1, 6), "max_memories": (0, 50),
           "workers": (1, 16), "debounce_ms": (0, 10_000)}


def parse(raw, base: ServerSettings | None = None) -> tuple[ServerSettings, list[str]]:
    """Settings from a JSON object; unknown keys and bad values are reported and ignored."""
    base = base or ServerSettings()
    if raw is None:
        return base, []
    if not isinstance(raw, dict):
        return base, [f"settings must be an object, got {type(raw).__name__}: using the defaults"]
    problems: list[str] = []
    sections = {}
    known = {camel(f.name): f.name for f in fields(ServerSettings)}
    for key, value in raw.items():
        if key not in known:
            problems.append(f"unknown setting {key!r} ignored (known: {', '.join(sorted(known))})")
            continue
        name = known[key]
        sections[name] = _parse_section(getattr(base, name), value, key, problems)
    return replace(base, **sections), problems


def _parse_section(section, raw, prefix: str, problems: list[str]):
    if not isinstance(raw, dict):
        problems.append(f"setting {prefix} must be an object, got {raw!r}: using the defaults")
        return section
    known = {camel(f.name): f for f in fields(section)}
    values = {}
    for key, value in raw.items():
        f = known.get(key)
        if f is None:
            problems.append(f"unknown setting {prefix}.{key} ignored")
            continue
        ok, parsed = _coerce(f.name, getattr(section, f.name), value)
        if ok:
            values[f.name] = parsed
        else:
            problems.append(f"setting {prefix}.{key} = {value!r} is not valid ({parsed}): "
                            f"using {getattr(section, f.name)!r}")
    return replace(section, **values)


def _coerce(name: str, default, value) -> tuple[bool, object]:
    if isinstance(default, bool):
        return (True, value) if isinstance(value, bool) else (False, "expected true or false")
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False, "expected a number"
        if isinstance(default, int) and not float(value).is_integer():
            return False, "expected a whole number"
        low, high = _LIMITS.get(name, (None, None))
        if low is not None and not low <= value <= high:
            return False, f"expected {low} to {high}"
        return True, type(default)(value)
    if isinstance(default, tuple):
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return True, tuple(value)
        return False, "expected a list of strings"
    return False, "unsupported"
