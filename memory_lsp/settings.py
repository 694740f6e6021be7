"""Settings: one typed tree with defaults, for the CLI, the indexer and the language server.

`Config` is the whole tree: `indexing` (what the indexer and `Workspace.open` receive, also known
as `Settings`), `hover`, `diagnostics`, `code_lens` and `embeddings`. `parse` reads it from the
JSON an editor sends (`initializationOptions`, `workspace/configuration` section "memory"), with
camelCase keys. A bad value never stops anything: it falls back to the default and `parse`
returns one line per problem, which the server shows to the user.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

# .gitignore syntax. Build outputs and vendored trees only at the top: deeper folders with
# these names are often real code (pip has a package `pip/_internal/operations/build`). A Python
# environment is left out by what it holds, whatever its name (index/discover.py: ENVIRONMENT_MARKERS),
# so that a package named `venv` (the standard library has one) is indexed.
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".memory", "node_modules", ".venv", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".tox", "/dist/", "/build/", "/target/", "/vendor/",
    "/third_party/", ".idea", ".vscode", "*.min.js", "*.min.css", "*.bundle.js", "*.generated.*",
)


@dataclass(frozen=True)
class Indexing:
    excludes: tuple[str, ...] = ()  # extra globs, matched like .gitignore lines
    workers: int = 2  # parse processes (parse() holds the GIL: threads do not help)
    watch: bool = True  # the server watches the disk for changes made outside the editor
    debounce_ms: int = 400  # the server waits this long after the last keystroke before re-indexing a buffer
    max_file_bytes: int = 1_000_000  # tree-sitter on a 20 MB one-line file: 23 s and 3.7 GB
    max_line_bytes: int = 10_000  # longer average line = minified or generated: skipped
    git_max_commits: int = 2000
    co_change_max_files: int = 30  # commits touching more files are ignored (mass renames, formatting)
    co_change_min_support: int = 2

    def __post_init__(self) -> None:
        object.__setattr__(self, "excludes", tuple(self.excludes))  # Settings(excludes=[...]) too


Settings = Indexing  # the name the indexer, `Workspace.open` and the CLI know the indexing section by


@dataclass(frozen=True)
class Hover:
    enabled: bool = True
    max_memories: int = 6
    depth: int = 2  # how far the impact summary reaches
    min_confidence: float = 0.5  # as `impact`'s default: what it counts is right 97-99% of the time (bench_truth.py)


@dataclass(frozen=True)
class Diagnostics:
    enabled: bool = True
    max_per_file: int = 20  # quiet by default: a file never gets more than this many
    min_confidence: float = 0.3  # memories whose effective confidence fell below stay silent
    citations: bool = True  # drifted and orphaned citations


@dataclass(frozen=True)
class CodeLens:
    enabled: bool = True
    depth: int = 2  # how far "dependents" reaches
    min_dependents: int = 1  # a symbol without memories gets a lens from this many dependents on
    min_confidence: float = 0.5  # as hover.min_confidence
    test_files: bool = False  # lenses in test files too (quiet by default: a test has no dependents worth a line)


@dataclass(frozen=True)
class Embeddings:
    background: bool = True  # embed memories and chunks in the background after indexing
    # the code chunks the background embeds, most central files first (memories always): all of an
    # 11,282-file workspace's 274,000, at the 31 a second measured there, kept both cores busy for 2.4
    # hours (BENCHMARKS.md bb); 0: memories only. BM25 and the graph search all code; `memory-lsp embed`
    # does the rest
    code_chunks: int = 10_000


@dataclass(frozen=True)
class Config:
    indexing: Indexing = field(default_factory=Indexing)
    hover: Hover = field(default_factory=Hover)
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    code_lens: CodeLens = field(default_factory=CodeLens)
    embeddings: Embeddings = field(default_factory=Embeddings)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


LIMITS = {"max_per_file": (0, 1000), "min_confidence": (0.0, 1.0), "depth": (1, 6), "max_memories": (0, 50),
          "min_dependents": (1, 1_000_000), "workers": (1, 16), "debounce_ms": (0, 10_000), "max_file_bytes": (1_000, 1_000_000_000),
          "max_line_bytes": (100, 10_000_000), "git_max_commits": (0, 1_000_000),
          "co_change_max_files": (2, 10_000), "co_change_min_support": (1, 1000), "code_chunks": (0, 100_000_000)}


def parse(raw, base: Config | None = None) -> tuple[Config, list[str]]:
    """Settings from a JSON object over `base`; unknown keys and bad values are reported and ignored."""
    base = base or Config()
    if raw is None:
        return base, []
    if not isinstance(raw, dict):
        return base, [f"settings must be an object, got {type(raw).__name__}: using the defaults"]
    problems: list[str] = []
    sections = {}
    known = {camel(f.name): f.name for f in fields(Config)}
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
        low, high = LIMITS.get(name, (None, None))
        if low is not None and not low <= value <= high:
            return False, f"expected {low} to {high}"
        return True, type(default)(value)
    if isinstance(default, tuple):
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return True, tuple(value)
        return False, "expected a list of strings"
    return False, "unsupported"
