"""Ground truth for bench_truth.py, from tools nobody here wrote, cached per corpus.

A corpus is a registry package's sdist (pip download), its src/ (or its package folder, for a
flat layout) and tests/ copied into a workspace. The truths:
  calls    jedi `goto` (follow_imports) at every call site Python's `ast` finds (and at `__call__` of a
           called variable: `instance_calls`): the function or
           class it reaches, "external" when that is outside the workspace, nothing when jedi
           cannot say (those sites are left out of every score);
  bases    CPython `__bases__` of every class of the package, imported in a child process;
  tests    coverage.py per-test contexts (pytest-cov `--cov-context=test`): which test files run
           lines of each source file.
The package's tests and imports run in a venv of their own (CACHE/truth/venv), never this one.
"""

from __future__ import annotations

import ast
import json
import re
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

ROOT = corpora.CACHE / "truth"
VENV = ROOT / "venv"
# packages the corpora's tests and imports need, in their venv only
VENV_PACKAGES = ["pytest", "pytest-cov", "coverage", "hypothesis", "urllib3", "idna", "charset_normalizer",
                 "certifi", "werkzeug", "jinja2", "itsdangerous", "blinker", "click", "pympler",
                 "cloudpickle", "pytest-httpbin", "trustme", "pytest-mock", "freezegun", "pretend",  # pretend: packaging
                 "pytz", "simplejson", "pytest-asyncio",  # marshmallow's tests, structlog's
                 "twisted", "rich", "greenlet",  # structlog's dev extra: test_twisted.py skips itself without
                 "pytest-timeout", "pytest-xprocess", "ephemeral-port-reserve", "watchdog", "cryptography",  # werkzeug's
                 "shellingham", "annotated-doc", "pydantic"]  # typer's
# folders beside src/ and tests/ that a package's tests import (typer's tests run the docs' examples, a namespace
# package at the root: `import docs_src.progressbar.tutorial001`)
EXTRA_PARTS = {"typer": ("docs_src", "scripts")}
# a release whose tests need an older pytest gets a venv of its own (flask 3.0.3's conftest reads
# `_pytest.monkeypatch.notset`, gone in pytest 9)
PYTEST_FOR = {"flask": "pytest==8.3.5"}


def workspace(spec: str) -> Path:
    """`name==version` -> a workspace holding the sdist's src/ and tests/ (made once)."""
    name = spec.split("==")[0]
    dest = ROOT / spec.replace("==", "-")
    ws = dest / "ws"
    if (dest / ".complete").exists():
        return ws
    shutil.rmtree(dest, ignore_errors=True)
    sdist = ROOT / "sdist"
    sdist.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    spec, "-d", str(sdist)], check=True)
    archive = next(p for p in sdist.iterdir() if p.name.lower().startswith(spec.replace("==", "-").lower())
                   and p.name.endswith(".tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(dest / "unpacked", filter="data")
    top = next((dest / "unpacked").iterdir())
    for part in ("src", "tests", *EXTRA_PARTS.get(name, ())):
        if (top / part).is_dir():
            shutil.copytree(top / part, ws / part, ignore=shutil.ignore_patterns("__pycache__"))
    flat = top / name.lower().replace("-", "_")
    if not (top / "src").is_dir() and (flat / "__init__.py").exists():  # a flat layout (httpx/ beside tests/):
        shutil.copytree(flat, ws / "src" / flat.name, ignore=shutil.ignore_patterns("__pycache__"))  # under src/ too
    for extra in ("conftest.py", "pyproject.toml", "setup.cfg", "tox.ini"):
        if (top / extra).exists():
            shutil.copy2(top / extra, ws / extra)
    if not (ws / "src" / name.lower()).exists() and not any((ws / "src").glob("*/__init__.py")):
        raise SystemExit(f"{spec}: no package under src/")
    (dest / ".complete").write_text("")
    return ws


def venv_python(name: str = "") -> str:
    pin = PYTEST_FOR.get(name)
    venv = VENV if pin is None else ROOT / f"venv-{name}"
    py = venv / "bin" / "python"
    if not (venv / ".complete").exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", *VENV_PACKAGES, *([pin] if pin else [])], check=True)
        (venv / ".complete").write_text("")
    return str(py)


def py_files(ws: Path) -> list[str]:
    return sorted(str(p.relative_to(ws)) for p in ws.rglob("*.py") if "__pycache__" not in p.parts)


def _nodes(source: str) -> list:
    """Every node `ast` finds in `source`, none when it does not parse."""
    try:
        return list(ast.walk(ast.parse(source)))
    except SyntaxError:
        return []


def call_sites(source: str) -> list[tuple[int, int, str, bool]]:
    """(line, column, name, is_super) of the called name of every call `ast` finds."""
    sites = []
    for node in _nodes(source):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name):
            sites.append((f.lineno, f.col_offset, f.id, False))
        elif isinstance(f, ast.Attribute) and f.end_lineno is not None:
            is_super = isinstance(f.value, ast.Call) and isinstance(f.value.func, ast.Name) \
                and f.value.func.id == "super"
            sites.append((f.end_lineno, f.end_col_offset - len(f.attr), f.attr, is_super))
    return sites


def calls_truth(spec: str, ws: Path) -> list[dict]:
    """Every call site with jedi's answer: targets [[path, line, name]], "external" (outside the
    workspace), "local" (a parameter of the function around it), or None (jedi cannot say). The
    sites: every call `ast` finds, and every decorator written without a call (`@attr.s`: Python
    calls it with what it decorates), the latter cached apart (calls.json came first)."""
    out = _jedi_answers(ws, ws.parent / "calls.json", call_sites)
    out += _jedi_answers(ws, ws.parent / "calls_decorators.json", decorator_sites)
    out += instance_calls(ws, ws.parent / "calls_instances.json", out)
    return module_attributes(follow_reexports(out, ws), ws)


def _local(script, line: int, col: int) -> bool:
    """Whether the name at (line, col) is bound in the function around it (jedi's `goto`)."""
    try:
        names = script.goto(line, col)
    except Exception:
        return False
    return bool(names) and all(n.module_path == script.path and n.parent() is not None
                               and n.parent().type == "function" for n in names)


def instance_calls(ws: Path, cache: Path, sites: list[dict]) -> list[dict]:
    """A call of a name that jedi's `goto` takes to a variable or a parameter (`inst(environ, ...)`)
    and jedi's `infer` to an instance runs what `inst.__call__` is: jedi's `goto` at `__call__` in a
    copy of the file where each such call is written `inst.__call__(...)`. One more site per call,
    named `__call__` (the graph writes the call of an instance so: index/instance.py): the method,
    "external", or None. Where jedi infers the name as a class of the workspace (`cls =
    self._getTargetClass(); cls(**kw)`), a site named as the class, which the call makes (the graph
    names that call so: index/extract.py)."""
    if cache.exists():
        return json.loads(cache.read_text())
    import jedi

    project = _project(ws)
    asked: dict[str, set] = {}
    for s in sites:  # bare names whose goto gave no function or class
        if s["truth"] in (None, "local") and not s["super"]:
            asked.setdefault(s["path"], set()).add((s["line"], s["name"]))
    out = []
    for rel, wanted in sorted(asked.items()):
        lines = (ws / rel).read_text(encoding="utf-8", errors="replace").split("\n")
        at = []  # (line, column of `__call__` in the copy)
        by_line: dict[int, list] = {}
        original = jedi.Script(code="\n".join(lines), path=str(ws / rel), project=project)
        apart = jedi.Script(code="\n".join(lines), path=str(ws / rel), project=project)  # (a goto there
        # changed what `original` inferred next: jedi's inference keeps state per script)
        for node in _nodes("\n".join(lines)):
            f = node.func if isinstance(node, ast.Call) else None
            line, col, name = (f.lineno, f.col_offset, f.id) if isinstance(f, ast.Name) else (0, 0, "")
            if (line, name) not in wanted or lines[line - 1][col:col + len(name)] != name:
                continue
            try:  # an instance only: jedi takes `cls.__call__` of a class to the method its instances have
                inferred = original.infer(line, col)
            except Exception:
                inferred = []
            if inferred and all(n.type == "instance" for n in inferred):
                by_line.setdefault(line, []).append((col, name))
            made = [[str(Path(n.module_path).relative_to(ws)), n.line, n.name] for n in inferred if n.type == "class"
                    and n.module_path and str(n.module_path).startswith(str(ws) + os.sep) and n.line]
            if made and len(made) == len(inferred) and len({m[2] for m in made}) == 1 and _local(apart, line, col):
                # `cls(**kw)`, cls a class bound in the function (not `data_required()`, an alias imported):
                out.append({"path": rel, "line": line, "name": made[0][2], "super": False, "truth": made})  # made
        for line, calls in by_line.items():
            text, shift = lines[line - 1], 0
            for col, name in sorted(calls):
                end = col + shift + len(name)
                text = text[:end] + ".__call__" + text[end:]
                at.append((line, end + 1))
                shift += len(".__call__")
            lines[line - 1] = text
        script = jedi.Script(code="\n".join(lines), path=str(ws / rel), project=project)
        for line, col in at:
            try:
                names = script.goto(line, col, follow_imports=True)
            except Exception:
                names = []
            targets = [[str(Path(n.module_path).relative_to(ws)), n.line, n.name] for n in names
                       if n.module_path and str(n.module_path).startswith(str(ws) + os.sep) and n.type == "function" and n.line]
            external = any(not n.module_path or not str(n.module_path).startswith(str(ws) + os.sep) for n in names)
            answer = targets if targets else ("external" if external else None)
            out.append({"path": rel, "line": line, "name": "__call__", "super": False, "truth": answer})
    cache.write_text(json.dumps(out))
    return out


def _project(ws: Path):
    """jedi's project over the copy and the standard library only: an installed copy of the package
    (this venv may hold one) would turn its own calls into "external"."""
    import jedi

    stdlib = sorted({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})
    return jedi.Project(path=str(ws), sys_path=[str(ws / "src"), str(ws / "tests"), str(ws), *stdlib])


def _jedi_answers(ws: Path, cache: Path, sites_of) -> list[dict]:
    if cache.exists():
        return json.loads(cache.read_text())
    import jedi

    project = _project(ws)
    out = []
    for rel in py_files(ws):
        source = (ws / rel).read_text(encoding="utf-8", errors="replace")
        script = jedi.Script(code=source, path=str(ws / rel), project=project)
        for line, col, name, is_super in sites_of(source):
            try:
                names = script.goto(line, col, follow_imports=True)
            except Exception:  # jedi's own failures: no answer at that site
                names = []
            targets, external, local = [], False, False
            for n in names:
                mp = n.module_path
                if mp is None or not str(mp).startswith(str(ws) + os.sep):
                    external = True
                elif n.type in ("function", "class") and n.line:
                    targets.append([str(Path(mp).relative_to(ws)), n.line, n.name])
                elif n.type == "param":  # a parameter (a pytest fixture, a callback): no function by name
                    local = True
            answer = targets if targets else ("external" if external else ("local" if local else None))
            out.append({"path": rel, "line": line, "name": name, "super": is_super, "truth": answer})
    cache.write_text(json.dumps(out))
    return out


def decorator_sites(source: str) -> list[tuple[int, int, str, bool]]:
    """(line, column, name, False) of each decorator written without a call (`@attr.s`, `@cached`)."""
    sites = []
    for node in _nodes(source):
        for d in getattr(node, "decorator_list", ()):
            if isinstance(d, ast.Name):
                sites.append((d.lineno, d.col_offset, d.id, False))
            elif isinstance(d, ast.Attribute) and d.end_lineno is not None:
                sites.append((d.end_lineno, d.end_col_offset - len(d.attr), d.attr, False))
    return sites


# a module-level alias line, `s = attributes = attrs` (group 2: the name it binds to)
_ALIAS = re.compile(r"^(\s*(?:[A-Za-z_]\w*\s*=\s*)+)([A-Za-z_]\w*)\s*(?:#.*)?$")


def follow_reexports(sites: list[dict], ws: Path) -> list[dict]:
    """jedi's `goto` at a name a package `__init__` re-exports stops there when a stub sits
    beside it (attrs: `__init__.pyi`): the target is the import line, no function. jedi's `goto`
    at that name in the `__init__` reaches the definition: the site's target is that one."""
    import jedi

    project = None
    moved: dict[tuple, list] = {}
    for site in sites:
        if not isinstance(site["truth"], list):
            continue
        out = []
        for p, line, name in site["truth"]:
            key = (p, line, name)
            if key not in moved:
                text = (ws / p).read_text(encoding="utf-8", errors="replace").splitlines()[line - 1]
                moved[key] = [key]
                col = re.search(rf"\b{re.escape(name)}\b", text)
                if not re.match(r"\s*(async\s+)?(def|class)\s", text) and col:
                    project = project or _project(ws)
                    script = jedi.Script(path=str(ws / p), project=project)
                    found = _defined(script, line, col.start(), ws)
                    alias = _ALIAS.match(text)
                    if not found and alias:  # `s = attributes = attrs`: jedi stops at the alias; goto its value
                        found = _defined(script, line, alias.start(2), ws)
                    moved[key] = found or [key]
            out.extend(moved[key])
        site["truth"] = [list(t) for t in out]
    stuck = {key for key, found in moved.items() if found == [key] and key[0].startswith("src/")}
    if stuck:  # jedi stopped at a re-export it could not follow: ask CPython what the name is
        where = _cpython_defined(ws, stuck)
        for site in sites:
            if isinstance(site["truth"], list):
                site["truth"] = [list(where.get(tuple(t), t)) for t in site["truth"]]
    return sites


_RECEIVER = re.compile(r"([A-Za-z_][\w.]*)\.\s*$")


def module_attributes(sites: list[dict], ws: Path) -> list[dict]:
    """Where jedi has no answer at `mod.f(...)` (attrs' `attr.s(...)`: `s = attributes = attrs`
    in attr's __init__) but resolves the receiver to a module of the workspace, CPython says what
    that module's attribute is (`attr.s is attr._make.attrs`): the site's target. Cached beside
    calls.json."""
    cache = ws.parent / "calls_modattr.json"
    if cache.exists():
        found = {tuple(k): v for k, v in json.loads(cache.read_text())}
    else:
        import jedi

        project = _project(ws)
        scripts, files, asked = {}, {}, {}
        for site in sites:
            if site["truth"] is not None:
                continue
            if site["path"] not in files:
                source = (ws / site["path"]).read_text(encoding="utf-8", errors="replace")
                files[site["path"]] = (source.splitlines(), {(ln, n): c for ln, c, n, _ in call_sites(source) + decorator_sites(source)})
            lines, cols = files[site["path"]]
            col = cols.get((site["line"], site["name"]))
            m = _RECEIVER.search(lines[site["line"] - 1][:col]) if col is not None else None
            if m is None:
                continue
            if site["path"] not in scripts:
                scripts[site["path"]] = jedi.Script(path=str(ws / site["path"]), project=project)
            try:  # jedi at the receiver's last name: a module of the workspace?
                names = scripts[site["path"]].goto(site["line"], m.end(1) - 1, follow_imports=True)
            except Exception:
                continue
            mod = next((n.module_path for n in names if n.type == "module" and n.module_path
                        and str(n.module_path).startswith(str(ws / "src") + os.sep)), None)
            if mod is not None:
                asked[(site["path"], site["line"], site["name"])] = [str(Path(mod).relative_to(ws)), 0, site["name"]]
        where = _cpython_defined(ws, {tuple(v) for v in asked.values()})
        found = {k: list(where[tuple(v)]) for k, v in asked.items() if tuple(v) in where}
        cache.write_text(json.dumps([[list(k), v] for k, v in found.items()]))
    for site in sites:
        target = found.get((site["path"], site["line"], site["name"]))
        if site["truth"] is None and target is not None:
            site["truth"] = [target]
    return sites


CPYTHON_DEFINED = r"""
import importlib, inspect, json, os, re, sys
out = []
for path, line, name in json.loads(sys.stdin.read()):
    parts = path[len("src/"):-len(".py")].split("/")
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        obj = inspect.unwrap(getattr(importlib.import_module(module), name))
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        lines, first = inspect.getsourcelines(obj)
    except BaseException:
        continue
    skip = next((i for i, text in enumerate(lines) if re.match(r"\s*(async\s+)?(def|class)\s", text)), 0)
    out.append([[path, line, name], [os.path.realpath(inspect.getsourcefile(obj)), first + skip, obj.__name__]])
print(json.dumps(out))
"""


def _cpython_defined(ws: Path, keys: set) -> dict[tuple, tuple]:
    """(path, line, name) of a re-export line (`from attr import field` in attrs/__init__.py) ->
    the function or class CPython finds under that name of that module (`attrs.field is
    attr._next_gen.field`), when it is the workspace's. jedi stops there when stubs sit beside
    each module on the way (attrs' `__init__.pyi`)."""
    run = subprocess.run([venv_python(), "-c", CPYTHON_DEFINED], input=json.dumps(sorted(keys)), text=True,
                         capture_output=True, cwd=ws, env={**os.environ, "PYTHONPATH": str(ws / "src")})
    root = os.path.realpath(ws) + os.sep
    found = {}
    for key, (path, line, name) in json.loads(run.stdout or "[]"):
        if path.startswith(root):
            found[tuple(key)] = (os.path.relpath(path, root), line, name)
    return found


def _defined(script, line: int, col: int, ws: Path) -> list[list]:
    """The functions and classes of the workspace jedi's `goto` reaches from (line, col)."""
    try:
        names = script.goto(line, col, follow_imports=True)
    except RecursionError:  # `from attr import define as define` chains: infer
        names = script.infer(line, col)
    return [[str(Path(n.module_path).relative_to(ws)), n.line, n.name] for n in names
            if n.module_path and str(n.module_path).startswith(str(ws) + os.sep)
            and n.type in ("function", "class") and n.line]


BASES_CHILD = r"""
import importlib, inspect, json, os, pkgutil, sys
src, pkg = sys.argv[1], sys.argv[2]
sys.path.insert(0, src)
root = importlib.import_module(pkg)
mods = [root] + []
for info in pkgutil.walk_packages(root.__path__, pkg + "."):
    if info.name.endswith(".__main__"):  # would run the package's command line
        continue
    try:
        mods.append(importlib.import_module(info.name))
    except BaseException:
        pass
files = sorted({os.path.realpath(m.__file__) for m in mods if getattr(m, "__file__", None)})
def defines(path, name):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return any(line.lstrip().startswith(("class " + name + "(", "class " + name + ":")) for line in fh)
def where(cls):
    try:
        f = inspect.getsourcefile(cls)
    except TypeError:
        return None
    f = f and os.path.realpath(f)
    if not f or not f.startswith(os.path.realpath(src) + os.sep):
        return None
    if not defines(f, cls.__name__):  # `__module__ = "pluggy"` in _warnings.py names the package's __init__
        f = next((g for g in files if defines(g, cls.__name__)), f)
    return os.path.relpath(f, os.path.dirname(os.path.realpath(src))) + "::" + cls.__qualname__
pairs, seen = set(), set()
def visit(cls):
    if cls in seen: return
    seen.add(cls)
    me = where(cls)
    if me is None or "<locals>" in me: return
    for base in cls.__bases__:
        b = where(base)
        if b and b != me and "<locals>" not in b: pairs.add((me, b))  # `class Url(NamedTuple("Url", ...))`: made, not defined
    for v in vars(cls).values():
        if inspect.isclass(v) and v.__module__ == cls.__module__: visit(v)
for m in mods:
    for v in list(vars(m).values()):
        if inspect.isclass(v) and v.__module__ == m.__name__: visit(v)
print(json.dumps({"classes": sorted(filter(None, (where(c) for c in seen))), "pairs": sorted(pairs)}))
"""


def bases_truth(spec: str, ws: Path) -> dict:
    cache = ws.parent / "bases.json"
    if cache.exists():
        return json.loads(cache.read_text())
    pkg = next(p.parent.name for p in sorted((ws / "src").glob("*/__init__.py")))
    out = subprocess.run([venv_python(), "-c", BASES_CHILD, str(ws / "src"), pkg], capture_output=True,
                         text=True, check=True).stdout
    result = json.loads(out)
    cache.write_text(json.dumps(result))
    return result


def tests_truth(spec: str, ws: Path) -> dict[str, list[str]]:
    """Source file -> the test files whose tests ran any of its lines (coverage per-test contexts)."""
    cache = ws.parent / "tests.json"
    if cache.exists():
        return json.loads(cache.read_text())
    data = ws.parent / ".coverage"
    env = {**os.environ, "PYTHONPATH": str(ws / "src"), "COVERAGE_FILE": str(data)}
    # -p no:warnings: an old release's "filterwarnings = error" would fail it on a newer pytest
    if not data.exists():  # the run's data file is kept: the slow part
        subprocess.run([venv_python(spec.split("==")[0]), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:warnings",
                        "--continue-on-collection-errors",  # a module an old release cannot import on this pytest
                        *("--cov=" + str(ws / part) for part in ("src", *EXTRA_PARTS.get(spec.split("==")[0], ()))),
                        "--cov-context=test", "--cov-report=", "tests"],
                       cwd=ws, env=env, capture_output=True, text=True)
    # read the data file (`coverage json --show-contexts` writes gigabytes on a test suite this size)
    from coverage import CoverageData

    cov = CoverageData(basename=str(data))
    cov.read()
    truth = {}
    for fname in cov.measured_files():
        rel = os.path.relpath(os.path.realpath(os.path.join(ws, fname)), os.path.realpath(ws))  # typer's are relative
        tests = set()
        for contexts in cov.contexts_by_lineno(fname).values():
            for ctx in contexts:
                node = ctx.split("|")[0]
                if "::" in node:
                    tests.add(node.split("::")[0])
        truth[rel] = sorted(tests)
    cache.write_text(json.dumps(truth))
    return truth
