"""JavaScript: what the query captures (extract), how imports resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import javascript as js_resolver


def facts(source: str, path: str = "src/a.js", lang: str = "javascript"):
    return extract(path, source.encode(), lang)


# ---- extraction: one case per capture form ----------------------------------------------

IMPORT_CASES = [
    ("import x from './a';", [(1, "'./a'", None, "x")]),
    ("import {a as b, c} from './a';", [(1, "'./a'", "a", "b"), (1, "'./a'", "c", None)]),
    ("import * as ns from './a';", [(1, "'./a'", "*", "ns")]),  # the module whole, bound to ns
    ("import './side';", [(1, "'./side'", None, None)]),
    ("import d, {e} from \"./a\";", [(1, '"./a"', None, "d"), (1, '"./a"', "e", None)]),
    ("export {f, g as h} from './b';", [(1, "'./b'", "f", None), (1, "'./b'", "g", "h")]),
    ("export * from './c';", [(1, "'./c'", "*", None)]),
    ("export * as nn from './d';", [(1, "'./d'", "*", "nn")]),
    ("export { e as f, g };", [(1, "./a.js", "e", "f")]),  # a name of its own renamed: a row into the file itself
    ("const m = require('./m');", [(1, "'./m'", None, "m")]),
    ("const {p, q: r} = require('./p');", [(1, "'./p'", "p", None), (1, "'./p'", "q", "r")]),
    ("require('./s');", [(1, "'./s'", None, None)]),
    ("module.exports = { a: require('./a2') };", [(1, "'./a2'", None, None)]),
    ("const y = require('./y').z;", [(1, "'./y'", None, None)]),
    ("async function f() { await import('./dyn'); }", [(1, "'./dyn'", None, None)]),
    ("const x = require(name);", []),  # not a string: nothing to follow
]


@pytest.mark.parametrize("source,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_import_captures(source, expected):
    assert sorted(facts(source).imports, key=str) == sorted(expected, key=str)


SOURCE = """\
const fn = () => 1, fe = function () {};
function* gen() {}
class A extends B.C {
  #hidden() { this.#hidden(); }
  handler = () => 2;
  static make() { return new Foo(); }
  get value() { return 1; }
  constructor() { this.x = 1; this.y += 2; this.z++; }
}
const K = class extends D { m() { helper(); } };
const obj = { notASymbol() {} };
function App() { return <div><Foo.Bar x={1}/><Baz/></div>; }
new a.Bar();
"""


def test_definitions():
    syms = {(s[0], s[2]) for s in facts(SOURCE).symbols}
    assert syms == {
        ("fn", "function"), ("fe", "function"), ("gen", "function"),
        ("A", "class"), ("A.#hidden", "method"), ("A.handler", "method"), ("A.make", "method"),
        ("A.value", "method"), ("A.constructor", "method"),
        ("K", "class"), ("K.m", "method"), ("App", "function"),
    }


def test_calls_inheritance_mutations():
    f = facts(SOURCE)
    calls = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "call"}
    assert ("A.#hidden", "#hidden", "this") in calls
    assert ("A.make", "Foo", None) in calls  # new Foo()
    assert ("K.m", "helper", None) in calls
    assert (None, "Bar", "a") in calls  # top-level new a.Bar()
    # JSX: capitalised components are uses, plain tags are not
    assert ("App", "Baz", None) in calls and ("App", "Bar", "Foo") in calls
    assert not any(name == "div" for _, name, _ in calls)
    inherits = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "inherit"}
    assert inherits == {("A", "C", "B"), ("K", "D", None)}
    assert f.mutations == 3


@pytest.mark.parametrize("path,is_test", [
    ("src/a.test.js", True), ("src/a.spec.jsx", True), ("src/__tests__/a.js", True),
    ("src/a.js", False), ("src/testing.js", False),
])
def test_test_file_rules(path, is_test):
    assert facts("const a = 1;", path=path).is_test is is_test


@pytest.mark.parametrize("source,category", [
    ("const fs = require('fs');", "file_io"),
    ("import { readFile } from 'node:fs/promises';", "file_io"),
    ("import axios from 'axios';", "network"),
    ("async function f() { await fetch('/x'); }", "network"),
    ("const { spawn } = require('child_process');", "subprocess"),
    ("import { PrismaClient } from '@prisma/client';", "database"),
    ("import Redis from 'ioredis';", "cache"),
])
def test_side_effects(source, category):
    assert category in facts(source).side_effects


def test_plain_module_has_no_side_effects():
    assert facts("import { a } from './fs'; a();").side_effects == []


# ---- resolver ------------------------------------------------------------------------------

def _resolve(tmp_path, files, rows):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = ResolveContext(root=tmp_path, paths=frozenset(p for p in files if not p.endswith((".json", ".css"))))
    return js_resolver.resolve([ImportRow(*r) for r in rows], ctx)


def test_resolver_relative_forms(tmp_path):
    files = {"src/main.js": "", "src/a.js": "", "src/lib/index.js": "", "src/b.mjs": "",
             "src/c.jsx": "", "shared/u.cjs": "", "src/style.css": ""}
    rows = [
        ("src/main.js", 1, "'./a'", None, "a"),
        ("src/main.js", 2, "'./a.js'", "x", None),
        ("src/main.js", 3, "'./lib'", None, None),
        ("src/main.js", 4, "'./b'", "*", None),
        ("src/main.js", 5, "'./c'", "C", None),
        ("src/main.js", 6, "'../shared/u'", None, "u"),
        ("src/main.js", 7, "'./missing'", None, None),
        ("src/main.js", 8, "'../../outside'", None, None),
        ("src/main.js", 9, "'react'", None, "React"),
        ("src/main.js", 10, "'node:fs'", None, "fs"),
        ("src/main.js", 11, "'./style.css'", None, None),
    ]
    out = _resolve(tmp_path, files, rows)
    assert [[(t.path, t.is_module) for t in ts] for ts in out[:6]] == [
        [("src/a.js", True)], [("src/a.js", False)], [("src/lib/index.js", True)],
        [("src/b.mjs", True)], [("src/c.jsx", False)], [("shared/u.cjs", True)],
    ]
    assert out[6] == [] and out[7] == []
    assert out[8] == EXTERNAL and out[9] == EXTERNAL
    assert out[10] == EXTERNAL  # an existing asset is not source to follow


def test_resolver_jsconfig_paths(tmp_path):
    files = {
        "jsconfig.json": '{\n  // comment\n  "compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"],},},\n}',
        "src/app.js": "", "src/util/helpers.js": "", "lib/top.js": "",
    }
    out = _resolve(tmp_path, files, [
        ("src/app.js", 1, "'@/util/helpers'", "h", None),
        ("src/app.js", 2, "'lib/top'", None, "top"),
        ("src/app.js", 3, "'lodash'", None, "_"),
    ])
    assert out[0][0].path == "src/util/helpers.js" and out[0][0].strategy == "tsconfig-paths"
    assert out[1][0].path == "lib/top.js" and out[1][0].strategy == "base-url"
    assert out[2] == EXTERNAL
