"""TypeScript and TSX: captures (extract), import resolution (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index import languages
from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import javascript as js_resolver


def facts(source: str, path: str = "src/a.ts", lang: str = "typescript"):
    return extract(path, source.encode(), lang)


@pytest.mark.parametrize("path,lang", [
    ("a.ts", "typescript"), ("types/x.d.ts", "typescript"), ("a.mts", "typescript"),
    ("a.cts", "typescript"), ("App.tsx", "tsx"), ("a.js", "javascript"), ("a.jsx", "javascript"),
    ("a.mjs", "javascript"), ("a.cjs", "javascript"),
])
def test_extensions(path, lang):
    assert languages.classify(path) == lang


# ---- extraction ---------------------------------------------------------------------------

SOURCE = """\
import type { T } from './t';
import x = require('./x');
import { type U, V as W } from './u.js';
export class A<T> extends B<T> implements I, ns.J<T> {
  private readonly h = () => 1;
  abstract m(): void;
  constructor(private a: string) { super(); this.a = a; }
  run() { this.h(); helper<number>(1); }
}
export abstract class C extends mod.D {}
interface I extends K, L.M<T> { f(): void; g: number }
enum E { A }
type Alias = string;
declare function df(a: number): void;
namespace NS { export function inner() {} }
export const q = <T,>(a: T) => a;
"""


def test_definitions():
    assert {(s[0], s[2]) for s in facts(SOURCE).symbols} == {
        ("A", "class"), ("A.h", "method"), ("A.m", "method"), ("A.constructor", "method"),
        ("A.run", "method"), ("C", "class"), ("I", "interface"), ("I.f", "method"),
        ("E", "enum"), ("Alias", "type"), ("df", "function"), ("NS", "module"),
        ("NS.inner", "function"), ("q", "function"),
    }


def test_imports():
    assert facts(SOURCE).imports == [
        (1, "'./t'", "T", None), (2, "'./x'", None, "x"),
        (3, "'./u.js'", "U", None), (3, "'./u.js'", "V", "W"),
    ]


def test_inheritance_calls_mutations():
    f = facts(SOURCE)
    inherits = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "inherit"}
    assert inherits == {("A", "B", None), ("A", "I", None), ("A", "J", "ns"),
                        ("C", "D", "mod"), ("I", "K", None), ("I", "M", "L")}
    calls = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "call"}
    assert {("A.run", "h", "this"), ("A.run", "helper", None)} <= calls
    assert f.mutations == 1


def test_tsx_component():
    f = facts("""\
import React from 'react';
import { Button } from './Button';
export function App(props: Props) { return <div><Foo.Bar x={1}/><Button>hi</Button></div>; }
export const Comp: React.FC = () => <span/>;
class Old extends React.Component<P> { render() { return <App/>; } }
""", path="src/App.tsx", lang="tsx")
    assert f.notes == []
    assert {(s[0], s[2]) for s in f.symbols} == {
        ("App", "function"), ("Comp", "function"), ("Old", "class"), ("Old.render", "method")}
    calls = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "call"}
    assert calls == {("App", "Bar", "Foo"), ("App", "Button", None), ("Old.render", "App", None)}
    assert ("inherit", "Old", "Old", "Component", "React", 5) in {tuple(r[:6]) for r in f.refs}


@pytest.mark.parametrize("path,is_test", [
    ("src/foo.test.ts", True), ("src/foo.spec.ts", True), ("src/__tests__/foo.ts", True),
    ("src/foo.ts", False), ("src/foo.d.ts", False),
])
def test_test_file_rules(path, is_test):
    assert facts("export const a = 1;", path=path).is_test is is_test


def test_tsx_test_file_rule():
    assert facts("export {};", path="src/App.test.tsx", lang="tsx").is_test


def test_side_effects():
    f = facts("import { readFile } from 'fs/promises';\nimport { Pool } from 'pg';\n")
    assert set(f.side_effects) == {"file_io", "database"}


# ---- resolver ------------------------------------------------------------------------------

def test_resolver_typescript_forms(tmp_path):
    files = ["main.ts", "util/index.ts", "esm.ts", "comp.tsx", "types.d.ts", "both.ts", "both.js"]
    ctx = ResolveContext(root=tmp_path, paths=frozenset(files))
    rows = [ImportRow("main.ts", i, m, n, a) for i, (m, n, a) in enumerate([
        ('"./util"', "f", None),       # folder -> index.ts, named import
        ("'./esm.js'", None, "esm"),   # TS ESM style: .js names the .ts source
        ("'./comp.js'", "C", None),    # ... or the .tsx source
        ("'./types'", "T", None),      # declaration file
        ("'./both'", None, None),      # .ts wins over .js
        ("'./nope.js'", None, None),
        ("'@scope/pkg'", None, None),
    ])]
    out = js_resolver.resolve(rows, ctx)
    assert [[(t.path, t.is_module) for t in ts] for ts in out[:5]] == [
        [("util/index.ts", False)], [("esm.ts", True)], [("comp.tsx", False)],
        [("types.d.ts", False)], [("both.ts", True)],
    ]
    assert out[5] == [] and out[6] == EXTERNAL


def test_resolver_tsconfig_paths_nearest_config(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app/tsconfig.json").write_text(
        '{"compilerOptions": {"paths": {"~/*": ["./src/*"], "config": ["./src/config/main.ts"]}}}')
    files = ["app/src/a.ts", "app/src/deep/b.ts", "app/src/config/main.ts"]
    ctx = ResolveContext(root=tmp_path, paths=frozenset(files))
    out = js_resolver.resolve([
        ImportRow("app/src/deep/b.ts", 1, "'~/a'", "a", None),
        ImportRow("app/src/deep/b.ts", 2, "'config'", None, "cfg"),
        ImportRow("app/src/deep/b.ts", 3, "'~/zzz'", None, None),
    ], ctx)
    assert out[0][0].path == "app/src/a.ts"
    assert out[1][0].path == "app/src/config/main.ts" and out[1][0].is_module
    assert out[2] == EXTERNAL
