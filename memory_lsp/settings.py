"""Settings shared by the CLI, the indexer and (later) the server: one typed tree with defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

# .gitignore syntax. Build outputs and vendored trees only at the top: deeper folders with
# these names are often real code (pip has a package `pip/_internal/operations/build`).
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".memory", "node_modules", ".venv", "venv", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".tox", "/dist/", "/build/", "/target/", "/vendor/",
    "/third_party/", ".idea", ".vscode", "*.min.js", "*.min.css", "*.bundle.js", "*.generated.*",
)


@dataclass
class Settings:
    excludes: list[str] = field(default_factory=list)  # extra globs, matched like .gitignore lines
    max_file_bytes: int = 1_000_000  # tree-sitter on a 20 MB one-line file: 23 s and 3.7 GB
    max_line_bytes: int = 10_000  # longer average line = minified or generated: skipped
    workers: int = 2  # parse processes (parse() holds the GIL: threads do not help)
    git_max_commits: int = 2000
    co_change_max_files: int = 30  # commits touching more files are ignored (mass renames, formatting)
    co_change_min_support: int = 2
