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


def sdist(name: str, version: str, home: Path) -> Path:
    """A registry package's source distribution (pip download from PyPI), unpacked once under
    `home`: its folder `<name>-<version>`."""
    import subprocess
    import sys
    import tarfile

    dest = home / f"{name}-{version}"
    if not (dest / ".complete").exists():
        home.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps",
                               f"{name}=={version}", "-d", str(home)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        with tarfile.open(home / f"{name}-{version}.tar.gz") as tar:
            tar.extractall(home, filter="data")
        (dest / ".complete").write_text("")
    return dest


def stdlib_copies(copies: int) -> Path:
    """`copies` copies of `stdlib_copy()`, tests included, as copy{i}/ of one workspace, made once:
    the stdlib's edits at a larger size (6 copies: 10,740 files)."""
    if copies <= 1:
        return stdlib_copy()
    one, dest = stdlib_copy(), CACHE / f"stdlib-x{copies}"
    if not (dest / ".complete").exists():
        shutil.rmtree(dest, ignore_errors=True)
        for i in range(copies):
            shutil.copytree(one, dest / f"copy{i}", ignore=shutil.ignore_patterns(".complete", ".memory"))
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


def _indexable(root: Path) -> list[Path]:
    """The files under `root` that discovery indexes by name (no __pycache__, no compiled modules)."""
    from memory_lsp.index.languages import classify

    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and classify(p.name) is not None)


def sized_workspace(dest: Path, n_files: int, packages: tuple[str, ...] = ()) -> tuple[Path, dict]:
    """A workspace of exactly `n_files` indexable files at `dest`: the installed packages named
    (all their indexable files, as dest/pkgs/<name>/) when together they make at most half of
    `n_files`, then copies of the standard library without tests (734 files) as dest/copy{i}/,
    the last copy cut short (its first files in path order) to make the count. Made once per
    (n_files, packages); returns the folder and what it holds."""
    import importlib.util
    import json

    stamp = dest / f".complete-sized-{n_files}-{'-'.join(packages)}"
    if stamp.exists():
        return dest, json.loads(stamp.read_text())
    shutil.rmtree(dest, ignore_errors=True)
    sources: list[tuple[Path, Path]] = []  # (source file, path in the workspace)
    held: dict = {"files": n_files, "packages": {}, "stdlib_copies": 0, "stdlib_partial_files": 0}
    trees = []
    for name in packages:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"package {name} is not installed (pip install {name})")
        src = Path(list(spec.submodule_search_locations)[0])
        trees.append((name, src, _indexable(src)))
    if sum(len(files) for _n, _s, files in trees) * 2 <= n_files:
        for name, src, files in trees:
            sources += [(f, Path("pkgs") / name / name / f.relative_to(src)) for f in files]
            held["packages"][name] = len(files)
    lib = Path(sysconfig.get_paths()["stdlib"])
    stdlib = stdlib_source_files()
    i = 0
    while len(sources) < n_files:
        take = stdlib[: n_files - len(sources)]
        sources += [(f, Path(f"copy{i}") / f.relative_to(lib)) for f in take]
        if len(take) == len(stdlib):
            held["stdlib_copies"] += 1
        else:
            held["stdlib_partial_files"] = len(take)
        i += 1
    for src, rel in sources:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    held["bytes"] = sum(src.stat().st_size for src, _rel in sources)
    stamp.write_text(json.dumps(held))
    return dest, held
