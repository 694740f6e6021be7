"""Java: what the query captures (extract), how imports resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import java as java_resolver


def facts(source: str, path: str = "src/main/java/com/x/A.java"):
    return extract(path, source.encode(), "java")


# ---- extraction ----------------------------------------------------------------------------

IMPORT_CASES = [
    ("import a.b.C;", [(1, "a.b.C", None, None)]),
    ("import a.b.*;", [(1, "a.b", "*", None)]),
    ("import static a.b.C.foo;", [(1, "a.b.C", "foo", None)]),
    ("import static a.b.C.*;", [(1, "a.b.C", "*", None)]),
    ("import Top;", [(1, "Top", None, None)]),
    ("package com.x;\nimport java.util.List;\nimport java.util.Map;",
     [(2, "java.util.List", None, None), (3, "java.util.Map", None, None)]),
]


@pytest.mark.parametrize("source,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_import_captures(source, expected):
    assert sorted(facts(source).imports, key=str) == sorted(expected, key=str)


SOURCE = """\
package com.x;

public class Child extends Base<String> implements I1, com.y.I2 {
    private int x;
    public Child(int x) { this.x = x; this.n += 1; this.k++; x = 3; }
    void run() {
        helper();
        this.go();
        Util.make(1);
        a.b().c();
        new Thing();
        new java.util.ArrayList<String>();
        super.run();
    }
    interface Inner extends I3 {}
    enum E { A; void f() {} }
    record R(int a) implements I4 {}
}
@interface Ann {}
"""


def test_definitions():
    syms = {(s[0], s[2]) for s in facts(SOURCE).symbols}
    assert syms == {
        ("Child", "class"), ("Child.Child", "method"), ("Child.run", "method"),
        ("Child.Inner", "interface"), ("Child.E", "enum"), ("Child.E.f", "method"),
        ("Child.R", "class"), ("Ann", "interface"),
    }


def test_calls():
    calls = {(r[1], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "call"}
    assert calls == {
        ("Child.run", "helper", None), ("Child.run", "go", "this"), ("Child.run", "make", "Util"),
        ("Child.run", "b", "a"), ("Child.run", "c", "a.b()"), ("Child.run", "Thing", None),
        ("Child.run", "ArrayList", None), ("Child.run", "run", "super"),
    }


def test_inheritance_and_mutations():
    f = facts(SOURCE)
    inherits = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "inherit"}
    assert inherits == {
        ("Child", "Base", None), ("Child", "I1", None), ("Child", "I2", "com.y"),
        ("Child.Inner", "I3", None), ("Child.R", "I4", None),
    }
    assert f.mutations == 3  # this.x =, this.n +=, this.k++ (not the local x = 3)


@pytest.mark.parametrize("path,is_test", [
    ("src/test/java/com/x/FooTest.java", True), ("src/main/java/com/x/FooTests.java", True),
    ("test/com/x/Helper.java", True), ("src/main/java/com/x/Foo.java", False),
    ("src/main/java/com/x/Testing.java", False),
])
def test_test_file_rules(path, is_test):
    assert facts("class A {}", path=path).is_test is is_test


@pytest.mark.parametrize("source,category", [
    ("import java.net.URL;", "network"),
    ("import java.net.http.HttpClient;", "network"),
    ("import java.nio.file.Files;", "file_io"),
    ("import java.io.FileReader;", "file_io"),
    ("class A { void f() { new ProcessBuilder(\"ls\").start(); } }", "subprocess"),
    ("class A { void f() { Runtime.getRuntime().exec(\"ls\"); } }", "subprocess"),
    ("import java.sql.Connection;", "database"),
    ("import redis.clients.jedis.Jedis;", "cache"),
])
def test_side_effects(source, category):
    assert category in facts(source).side_effects


def test_plain_file_has_no_side_effects():
    assert facts("import java.util.List;\nimport java.io.IOException;\nclass A {}").side_effects == []


# ---- resolver ------------------------------------------------------------------------------

def _resolve(tmp_path, files, rows):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = ResolveContext(root=tmp_path, paths=frozenset(files))
    return java_resolver.resolve([ImportRow(*r) for r in rows], ctx)


def test_resolver(tmp_path):
    files = {
        "src/main/java/com/x/App.java": "package com.x;\nclass App {}",
        "src/main/java/com/x/util/Strings.java": "package com.x.util;\nclass Strings {}",
        "src/main/java/com/x/util/Lists.java": "package com.x.util;\nclass Lists {}",
        "mod/src/com/x/api/Api.java": "package com.x.api;\ninterface Api {}",
        # the package line decides, not the folder
        "weird/place/Odd.java": "package com.x.odd;\nclass Odd {}",
    }
    app = "src/main/java/com/x/App.java"
    rows = [
        (app, 1, "com.x.util.Strings", None, None),
        (app, 2, "com.x.util", "*", None),
        (app, 3, "com.x.util.Strings", "join", None),  # import static com.x.util.Strings.join
        (app, 4, "com.x.util.Strings", "*", None),  # import static com.x.util.Strings.*
        (app, 5, "com.x.util.Strings.Inner", None, None),  # a nested class
        (app, 6, "com.x.api.Api", None, None),
        (app, 7, "com.x.odd.Odd", None, None),
        (app, 8, "com.x.missing.Gone", None, None),
        (app, 9, "java.util.List", None, None),
        (app, 10, "org.junit.Test", None, None),
        (app, 11, "javax.inject.Inject", None, None),
    ]
    out = _resolve(tmp_path, files, rows)
    strings = "src/main/java/com/x/util/Strings.java"
    assert [(t.path, t.is_module) for t in out[0]] == [(strings, False)]
    assert sorted(t.path for t in out[1]) == ["src/main/java/com/x/util/Lists.java", strings]
    assert all(t.is_module for t in out[1])
    assert [t.path for t in out[2]] == [strings]
    assert [(t.path, t.is_module) for t in out[3]] == [(strings, True)]
    assert [t.path for t in out[4]] == [strings]
    assert [t.path for t in out[5]] == ["mod/src/com/x/api/Api.java"]
    assert [t.path for t in out[6]] == ["weird/place/Odd.java"]
    assert out[7] == []  # looks like workspace code (com.x), but nothing matched
    assert out[8] == EXTERNAL and out[9] == EXTERNAL and out[10] == EXTERNAL


def test_resolver_path_suffix_without_package_line(tmp_path):
    files = {"src/a/b/C.java": "class C {}", "src/Main.java": "class Main {}"}
    out = _resolve(tmp_path, files, [("src/Main.java", 1, "a.b.C", None, None),
                                     ("src/Main.java", 2, "a.b", "*", None)])
    assert [t.path for t in out[0]] == ["src/a/b/C.java"]
    assert [t.path for t in out[1]] == ["src/a/b/C.java"]
