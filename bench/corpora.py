"""Real corpora for the benchmarks: copies of source that is on every machine (or in a wheel)."""

from __future__ import annotations

import os
import shutil
import sysconfig
from pathlib import Path

CACHE = Path(os.environ.get("MEMORY_LSP_BENCH_DIR", "/tmp/memory-lsp-bench"))


def stdlib_files() -> list[Path]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in lib.rglob("*.py") if "site-packages" not in p.parts)


def stdlib_copy() -> Path:
    """A copy of the running interpreter's Lib/*.py (no site-packages), made once."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    dest = CACHE / "stdlib"
    if not (dest / ".complete").exists():
        shutil.rmtree(dest, ignore_errors=True)
        for src in stdlib_files():
            target = dest / src.relative_to(lib)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
        (dest / ".complete").write_text("")
    return dest


def package_copy(name: str) -> Path:
    """A copy of an installed package's source tree (for example django), made once."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"package {name} is not installed (pip install {name})")
    src = Path(list(spec.submodule_search_locations)[0])
    dest = CACHE / name
    if not (dest / ".complete").exists():
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        (dest / ".complete").write_text("")
    return dest


def fresh_db(name: str) -> str:
    path = CACHE / "db" / f"{name}.duckdb"
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", ".wal"):
        if os.path.exists(str(path) + suffix):
            os.remove(str(path) + suffix)
    return str(path)


def stdlib_source_files() -> list[Path]:
    """The standard library's *.py without its test folders (test/, tests/, idle_test/) and site-packages."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    skip = {"site-packages", "test", "tests", "idle_test"}
    return [p for p in stdlib_files() if not skip & set(p.relative_to(lib).parts[:-1])]


def multi_copy_workspace(dest: Path, copies: int, packages: tuple[str, ...] = ()) -> Path:
    """A large workspace at `dest`: `copies` copies of the standard library (no tests) as
    dest/copy{i}/, plus the installed packages named (their whole source tree, no __pycache__)
    as dest/pkgs/<name>/. Made once per (copies, packages); `.memory/` is left alone."""
    import importlib.util

    stamp = dest / f".complete-{copies}-{'-'.join(packages)}"
    if stamp.exists():
        return dest
    for old in list(dest.glob(".complete-*")) + list(dest.glob("copy*")) + [dest / "pkgs"]:
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    lib = Path(sysconfig.get_paths()["stdlib"])
    files = stdlib_source_files()
    for i in range(copies):
        for src in files:
            target = dest / f"copy{i}" / src.relative_to(lib)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"package {name} is not installed (pip install {name})")
        src = Path(list(spec.submodule_search_locations)[0])
        shutil.copytree(src, dest / "pkgs" / name / name, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    stamp.write_text("")
    return dest
