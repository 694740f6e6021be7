"""Property: whatever the edits, incremental runs end in the graph a fresh full index builds.

A small Python + JavaScript + Go + Java workspace (plus a README that mentions names and paths) is
described by a model; hypothesis draws sequences of edits to it (a function body, add, delete or
rename a function or a method, add, delete or rename a file, change an import, a comment line
that moves every line). After each step the files are written, the incremental run indexes them
(a disk scan or an editor's per-file re-index), and every row of the graph (edges: kind, ends,
strategy, confidence, line, name; symbols, refs, imports, files) is compared with a full index of
the same files in an empty store. The search index too: its documents, terms and counts after
being brought up to date step by step (store/fulltext.py), and the in-memory postings copy a
server refreshes rather than reloads (retrieval/bm25.py), answer as one built from nothing.
bench/bench_incremental_exact.py runs the graph's check on the standard library.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory_lsp.retrieval import bm25
from memory_lsp.store import fulltext
from memory_lsp.workspace import Workspace

NAMES = ["alpha", "beta", "run", "helper", "close"]  # few names: collisions make by-name edges
STEMS = ["a", "b", "c", "test_d"]
ALIASES = ["al", "_beta"]
LANGS = ["py", "js", "go", "java"]
OPS = ["body", "add_fn", "del_fn", "rename_fn", "add_file", "del_file", "rename_file",
       "import", "unimport", "comment", "readme"]
GRAPH = {
    "files": "path, lang, hash, is_test, mutations",
    "symbols": "id, path, name, qualname, kind, start_line, end_line, parent",
    "refs": "path, kind, src, src_class, name, receiver, line",
    "imports": "path, line, module, name, alias, binding, target, is_module, strategy",
    "edges": "src, dst, kind, src_path, dst_path, line, confidence, strategy, name, support",
}


@dataclass(frozen=True)
class Module:
    """One source file: functions and one class's methods (name, calls), imports, comment lines.
    A call is (receiver index or -1 for none, name); an import is (stem, name or None, alias)."""

    lang: str
    stem: str
    funcs: tuple = ()
    methods: tuple = ()
    imports: tuple = ()
    comments: int = 0

    @property
    def path(self) -> str:
        if self.lang == "py":
            return f"pkg/{self.stem}.py"
        if self.lang == "js":
            return f"web/{self.stem.replace('test_', '')}{'.test' if 'test_' in self.stem else ''}.js"
        if self.lang == "java":  # one package: a class per file, named as the file (`test_d` -> DTest)
            return f"src/m/{_java_class(self.stem)}.java"
        folder = "util" if self.stem in ("a", "b") else "svc"
        return f"{folder}/{self.stem.replace('test_', '')}{'_test' if 'test_' in self.stem else ''}.go"


@dataclass(frozen=True)
class Model:
    modules: tuple = ()
    readme: tuple = ()  # tokens the README mentions


def _java_class(stem: str) -> str:
    return stem.replace("test_", "").upper() + "Unit" + ("Test" if "test_" in stem else "")  # `A` would be a type parameter


def _receivers(m: Module) -> list[str]:
    """Local names that stand for a module (the `mod` of `mod.f()`); in Java, the class of a
    variable it declares (`A v = new A(); v.f()`: the class of its package, looked up by name)."""
    if m.lang == "java":
        return [_java_class(stem) for stem, _name, _alias in m.imports]
    if m.lang == "go":
        return ["util"] if any(i[0] in ("a", "b") for i in m.imports) else []
    return [alias or stem for stem, name, alias in m.imports if name is None]


def _call(m: Module, call, self_name: str | None) -> str:
    receiver, name = call
    names = _receivers(m)
    if receiver == -2 and self_name:
        return f"{self_name}.{name}()"
    if receiver >= 0 and names and m.lang == "java":
        typ = names[receiver % len(names)]
        return f"{{ {typ} v = new {typ}(); v.{name}(); }}"
    if receiver >= 0 and names:
        return f"{names[receiver % len(names)]}.{name}()"
    return f"{name}()"


def render(m: Module) -> str:
    out = ["// edit" if m.lang != "py" else "# edit"] * m.comments
    if m.lang == "py":
        for stem, name, alias in m.imports:
            out.append(f"from pkg import {stem}" + (f" as {alias}" if alias else "") if name is None
                       else f"from pkg.{stem} import {name}" + (f" as {alias}" if alias else ""))
        for fn, calls in m.funcs:
            out += [f"def {fn}():"] + [f"    {_call(m, c, None)}" for c in calls] + ["    return 1", ""]
        if m.methods:
            out.append("class Worker:")
            for fn, calls in m.methods:
                out += [f"    def {fn}(self):"] + [f"        {_call(m, c, 'self')}" for c in calls] + ["        return 1"]
    elif m.lang == "js":
        for stem, name, alias in m.imports:
            out.append(f"import * as {alias or stem} from './{stem}';" if name is None
                       else f"import {{ {name}" + (f" as {alias}" if alias else "") + f" }} from './{stem}';")
        for fn, calls in m.funcs:
            out += [f"export function {fn}() {{"] + [f"  {_call(m, c, None)};" for c in calls] + ["}"]
        if m.methods:
            out.append("export class Worker {")
            for fn, calls in m.methods:
                out += [f"  {fn}() {{"] + [f"    {_call(m, c, 'this')};" for c in calls] + ["  }"]
            out.append("}")
    elif m.lang == "java":
        out = ["package m;", ""] + out + [f"public class {_java_class(m.stem)} {{"]
        for fn, calls in m.funcs:
            out += [f"    static void {fn}() {{"] + [f"        {_call(m, c, None)};" for c in calls] + ["    }"]
        for fn, calls in m.methods:
            out += [f"    void {fn}() {{"] + [f"        {_call(m, c, 'this')};" for c in calls] + ["    }"]
        out.append("}")
    else:
        out = [f"package {m.path.split('/')[0]}", ""] + out
        if _receivers(m) and not m.path.startswith("util/"):
            out.append('import "example.com/m/util"')
        for fn, calls in m.funcs:
            out += [f"func {fn}() {{"] + [f"\t{_call(m, c, None)}" for c in calls] + ["}"]
        if m.methods:
            out.append("type Worker struct{}")
            for fn, calls in m.methods:
                out += [f"func (w *Worker) {fn}() {{"] + [f"\t{_call(m, c, 'w')}" for c in calls] + ["}"]
    return "\n".join(out) + "\n"


def files_of(model: Model) -> dict[str, str]:
    files = {"go.mod": "module example.com/m\n\ngo 1.22\n", "pkg/__init__.py": ""}
    files.update({m.path: render(m) for m in model.modules})
    files["README.md"] = "# Readme\n" + "".join(f"See `{t}`.\n" for t in model.readme)
    return files


def _calls(draw_ints: tuple) -> tuple:
    return tuple((r % 4 - 2, NAMES[n % len(NAMES)]) for r, n in zip(draw_ints[::2], draw_ints[1::2]))


def apply(model: Model, op) -> Model:
    """One edit; indexes are taken modulo what exists so that every drawn step means something."""
    kind, i, j, name, other, flag, ints = op
    mods = list(model.modules)
    if kind == "add_file" or not mods:
        lang, stem = LANGS[i % len(LANGS)], STEMS[j % len(STEMS)]
        if any(m.lang == lang and m.stem == stem for m in mods):
            return model
        return replace(model, modules=tuple(mods + [Module(lang, stem, funcs=((name, _calls(ints)),))]))
    k = i % len(mods)
    m = mods[k]
    seq = "methods" if flag else "funcs"
    items = list(getattr(m, seq))
    if kind == "body" and items:
        items[j % len(items)] = (items[j % len(items)][0], _calls(ints))
    elif kind == "add_fn":
        items.insert(j % (len(items) + 1), (name, _calls(ints)))
    elif kind == "del_fn" and items:
        items.pop(j % len(items))
    elif kind == "rename_fn" and items:
        items[j % len(items)] = (other, items[j % len(items)][1])
    elif kind == "del_file":
        return replace(model, modules=tuple(mods[:k] + mods[k + 1:]))
    elif kind == "rename_file":
        stem = STEMS[j % len(STEMS)]
        if any(x.lang == m.lang and x.stem == stem for x in mods):
            return model
        mods[k] = replace(m, stem=stem)
        return replace(model, modules=tuple(mods))
    elif kind == "import":
        imp = (STEMS[j % len(STEMS)], None if flag else name, ALIASES[ints[0] % 2] if ints and ints[0] % 3 else None)
        mods[k] = replace(m, imports=m.imports + (imp,))
        return replace(model, modules=tuple(mods))
    elif kind == "unimport" and m.imports:
        mods[k] = replace(m, imports=m.imports[:j % len(m.imports)] + m.imports[j % len(m.imports) + 1:])
        return replace(model, modules=tuple(mods))
    elif kind == "comment":
        mods[k] = replace(m, comments=m.comments + 1)
        return replace(model, modules=tuple(mods))
    elif kind == "readme":
        token = m.path if flag else name
        return replace(model, readme=model.readme + (token,) if token not in model.readme
                       else tuple(t for t in model.readme if t != token))
    mods[k] = replace(m, **{seq: tuple(items)})
    return replace(model, modules=tuple(mods))


ints = st.lists(st.integers(0, 7), min_size=0, max_size=6).map(tuple)
steps = st.tuples(st.sampled_from(OPS), st.integers(0, 7), st.integers(0, 7), st.sampled_from(NAMES),
                  st.sampled_from(NAMES), st.booleans(), ints)
START = Model(modules=(
    Module("py", "a", funcs=(("helper", ()), ("run", ((-1, "helper"),)))),
    Module("py", "b", funcs=(("alpha", ((-1, "helper"), (0, "run"))),), methods=(("close", ((-2, "alpha"),)),),
           imports=(("a", "helper", "al"), ("a", None, None))),
    Module("py", "test_d", funcs=(("beta", ((-1, "alpha"),)),), imports=(("b", "alpha", None),)),
    Module("js", "a", funcs=(("helper", ()),), methods=(("run", ((-2, "helper"),)),)),
    Module("js", "b", funcs=(("alpha", ((-1, "al"), (0, "helper"))),), imports=(("a", "helper", "al"), ("a", None, "m"))),
    Module("go", "a", funcs=(("helper", ()),)),
    Module("go", "c", funcs=(("run", ((0, "helper"), (-1, "close"))),), methods=(("close", ((-2, "run"),)),),
           imports=(("a", None, None),)),
    Module("java", "a", funcs=(("helper", ()),), methods=(("run", ((-2, "helper"),)),)),
    Module("java", "b", funcs=(("alpha", ((0, "run"), (-1, "helper"))),), methods=(("close", ((0, "helper"),)),),
           imports=(("a", None, None),)),
), readme=("helper", "pkg/b.py"))


@dataclass
class Bench:
    """Two workspaces on one folder, opened once: the store under test and the reference, whose
    rows are all deleted before each full index (opening a store costs a second here)."""

    root: object
    live: Workspace
    reference: Workspace
    clock: list = field(default_factory=lambda: [1_700_000_000.0])

    def write(self, files: dict[str, str]) -> list[str]:
        """Make the folder hold exactly `files`; return the paths that changed or vanished."""
        changed = []
        present = {str(p.relative_to(self.root)) for p in self.root.rglob("*") if p.is_file()
                   and ".memory" not in p.parts}
        for rel in present - set(files):
            os.remove(self.root / rel)
            changed.append(rel)
        for rel, text in files.items():
            path = self.root / rel
            if rel in present and path.read_text() == text:
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            self.clock[0] += 10  # a new mtime for every write, whatever the clock's resolution
            os.utime(path, (self.clock[0], self.clock[0]))
            changed.append(rel)
        return changed


def graph(ws: Workspace) -> dict:
    cur = ws.store.cursor()
    return {t: sorted(cur.execute(f"SELECT {cols} FROM {t}").fetchall(), key=repr) for t, cols in GRAPH.items()}


def search_index(ws: Workspace) -> dict:
    """The BM25 index's rows, by document id (the numbers differ between the two stores)."""
    fulltext.ensure_fts(ws.store)
    cur = ws.store.cursor()
    return {"docs": sorted(cur.execute("SELECT id, kind, path, hash, len FROM bm25_docs").fetchall(), key=repr),
            "postings": sorted(cur.execute("SELECT d.id, t.term, p.tf FROM bm25_postings p JOIN bm25_docs d "
                                           "USING (docid) JOIN bm25_terms t USING (termid)").fetchall(), key=repr),
            "terms": sorted(cur.execute("SELECT term, df FROM bm25_terms").fetchall()),
            "sources": sorted(cur.execute("SELECT path, hash FROM bm25_sources").fetchall())}


QUERIES = ["helper", "run alpha", "worker close", "beta readme", "pkg util svc"]


def answers(store, index: bm25.Bm25Index | None) -> list:
    """Each query's (id, kind, rounded score), from the postings copy or (None) in SQL."""
    out = []
    for q in QUERIES:
        if index is None:
            found = fulltext.bm25(store, q, None, 20)
        else:
            terms = fulltext.query_terms(store, q)
            found = index.search(terms, fulltext.term_rows(store, [t for t, _ in terms]), None, 20)[0]
        # ties by id once rounded: equal scores may differ in the last bit between the two
        out.append(sorted(((i, k, round(s, 9)) for i, k, s in found), key=lambda r: (-r[2], r[0])))
    return out


def empty(ws: Workspace) -> None:
    cur = ws.store.cursor()
    for table in ("edges", "files", "skipped", "symbols", "refs", "imports", "chunks", "mentions") + fulltext.TABLES:
        cur.execute(f"DELETE FROM {table}")


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    root = tmp_path_factory.mktemp("prop") / "ws"
    root.mkdir()
    db = tmp_path_factory.mktemp("prop-db")
    b = Bench(root, Workspace.open(root, db=str(db / "live.duckdb")),
              Workspace.open(root, db=str(db / "reference.duckdb")))
    yield b
    b.live.close()
    b.reference.close()


@settings(max_examples=25, deadline=None, derandomize=True, print_blob=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(steps, min_size=1, max_size=5), editor=st.lists(st.booleans(), min_size=5, max_size=5))
def test_incremental_runs_equal_a_full_index(bench, edits, editor):
    model = START
    bench.write(files_of(model))
    empty(bench.live)
    bench.live.index(workers=0)
    fulltext.ensure_fts(bench.live.store)
    copy = bm25.Bm25Index.load(bench.live.store)
    for step, op in enumerate(edits):
        model = apply(model, op)
        changed = bench.write(files_of(model))
        if editor[step]:  # the server's path: only the files it was told about
            bench.live.reindex({rel: None for rel in changed})
        else:  # `memory-lsp index`: a disk scan that finds what changed
            bench.live.index(workers=0)
        empty(bench.reference)
        bench.reference.index(workers=0)
        assert graph(bench.live) == graph(bench.reference), f"after step {step}: {op}"
        assert search_index(bench.live) == search_index(bench.reference), f"after step {step}: {op}"
        with mock.patch.object(bm25, "RELOAD_SHARE", float("inf")):  # never a whole load: the refresh itself
            copy = copy.refreshed(bench.live.store)
        assert answers(bench.live.store, copy) == answers(bench.reference.store, None), f"after step {step}: {op}"
