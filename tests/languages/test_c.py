"""C and C++: what the queries capture (extract), how includes resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import c as c_resolver


def facts(source: str, path: str = "src/a.c", lang: str = "c"):
    return extract(path, source.encode(), lang)


def cpp(source: str, path: str = "src/a.cpp"):
    return facts(source, path, "cpp")


# ---- C extraction --------------------------------------------------------------------------

@pytest.mark.parametrize("lang,path", [("c", "src/a.c"), ("cpp", "src/a.cpp")])
def test_include_captures(lang, path):
    f = facts('#include "x.h"\n#include <stdio.h>\n#include "sub/y.h"\n', path, lang)
    assert f.imports == [(1, '"x.h"', None, None), (2, "<stdio.h>", None, None),
                         (3, '"sub/y.h"', None, None)]


C_SOURCE = """\
struct point { int x; };
struct point *make(void);
typedef struct node { int v; } node_t;
typedef struct { int q; } anon_t;
typedef struct node node2_t;
typedef int myint;
typedef int (*cb_t)(int);
typedef char *str_t;
enum color { RED };
typedef enum { A1 } e_t;
union u { int a; };
static int *helper(int a) { return 0; }
char **dbl(void) { return 0; }
int main(int argc, char **argv) {
    FILE *f = fopen("a", "r");
    printf("%d", helper(1));
    obj->fn(2);
    s.cb(3);
    p->x = 3;
    return system("ls");
}
"""


def test_c_definitions():
    syms = {(s[0], s[2]) for s in facts(C_SOURCE).symbols}
    assert syms == {
        ("point", "struct"), ("node", "struct"), ("node_t", "type"), ("anon_t", "struct"),
        ("node2_t", "type"), ("myint", "type"), ("cb_t", "type"), ("str_t", "type"),
        ("color", "enum"), ("e_t", "enum"), ("u", "struct"),
        ("helper", "function"), ("dbl", "function"), ("main", "function"),
    }  # the prototype `make` is not a definition


def test_c_calls_and_side_effects():
    f = facts(C_SOURCE)
    calls = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "call"}
    assert calls == {("main", "fopen", None), ("main", "printf", None), ("main", "helper", None),
                     ("main", "fn", "obj"), ("main", "cb", "s"), ("main", "system", None)}
    assert set(f.side_effects) == {"file_io", "subprocess"}
    assert f.mutations == 0


@pytest.mark.parametrize("source,category", [
    ("#include <sys/socket.h>\n", "network"),
    ("#include <curl/curl.h>\n", "network"),
    ("void f(void) { curl_easy_perform(h); }", "network"),
    ("void f(void) { int s = socket(1, 2, 3); }", "network"),
    ("void f(void) { fwrite(b, 1, 2, fp); }", "file_io"),
    ("void f(void) { popen(\"ls\", \"r\"); }", "subprocess"),
    ("void f(void) { if (fork() == 0) execvp(a, b); }", "subprocess"),
    ("#include <sqlite3.h>\n", "database"),
    ("void f(void) { sqlite3_exec(db, q, 0, 0, 0); }", "database"),
    ("#include <hiredis/hiredis.h>\n", "cache"),
])
def test_c_side_effects(source, category):
    assert category in facts(source).side_effects


def test_c_plain_file_has_no_side_effects():
    assert facts('#include <stdio.h>\n#include "x.h"\nint f(void) { return printf("x"); }').side_effects == []


@pytest.mark.parametrize("path,lang,is_test", [
    ("src/test_parse.c", "c", True), ("src/parse_test.c", "c", True), ("tests/helpers.h", "c", True),
    ("test/unit.c", "c", True), ("src/parse.c", "c", False), ("src/testing.c", "c", False),
    ("src/parse_test.cpp", "cpp", True), ("src/test_parse.cpp", "cpp", True),
    ("src/parse_test.cc", "cpp", True), ("tests/a.cc", "cpp", True), ("src/parse.cc", "cpp", False),
])
def test_test_file_rules(path, lang, is_test):
    assert facts("int x;", path, lang).is_test is is_test


# ---- C++ extraction ------------------------------------------------------------------------

CPP_SOURCE = """\
namespace app { namespace inner {
class Base { public: virtual void run(); };
class Derived : public Base, private ns::Mixin<int>, public Tmpl<int> {
public:
    Derived() : x(0) {}
    ~Derived() {}
    void run() override { this->x = 1; this->helper(); helper(); std::system("ls"); obj.go(); ptr->go(); make<int>(); }
    int get() const;
    static int *s() { return nullptr; }
    struct In { void f() {} };
    int x;
};
struct S : Base { };
}}
void app::inner::Derived::later() { this->x += 3; ++this->x; }
int Derived::get() const { return x; }
template <typename T> T ident(T v) { return v; }
template <typename T> class Box : public a::b::Base { T v; };
using Alias = Box<int>;
int main() { auto d = new Derived(); ns::call(1); return 0; }
"""


def test_cpp_definitions():
    syms = {(s[0], s[2]) for s in cpp(CPP_SOURCE).symbols}
    assert syms == {
        ("app", "module"), ("app.inner", "module"),
        ("app.inner.Base", "class"), ("app.inner.Derived", "class"),
        ("app.inner.Derived.Derived", "method"), ("app.inner.Derived.~Derived", "method"),
        ("app.inner.Derived.run", "method"), ("app.inner.Derived.s", "method"),
        ("app.inner.Derived.In", "struct"), ("app.inner.Derived.In.f", "method"),
        ("app.inner.S", "struct"),
        # out-of-class definitions: the extractor nests by byte range, so no class prefix
        ("later", "method"), ("get", "method"),
        ("ident", "function"), ("Box", "class"), ("Alias", "type"), ("main", "function"),
    }


def test_cpp_calls_inheritance_mutations():
    f = cpp(CPP_SOURCE)
    calls = {(r[1], r[3], r[4]) for r in f.refs if r[0] == "call"}
    run = "app.inner.Derived.run"
    assert calls == {
        (run, "helper", "this"), (run, "helper", None), (run, "system", "std"), (run, "go", "obj"),
        (run, "go", "ptr"), (run, "make", None), ("main", "Derived", None), ("main", "call", "ns"),
    }
    inherits = {(r[1], r[3]) for r in f.refs if r[0] == "inherit"}
    assert inherits == {("app.inner.Derived", "Base"), ("app.inner.Derived", "Mixin"),
                        ("app.inner.Derived", "Tmpl"), ("app.inner.S", "Base"), ("Box", "Base")}
    assert f.mutations == 3  # this->x =, this->x +=, ++this->x
    assert "subprocess" in f.side_effects  # std::system


@pytest.mark.parametrize("source,category", [
    ("#include <fstream>\n", "file_io"),
    ("#include <boost/asio.hpp>\n", "network"),
    ("void f() { std::system(\"ls\"); }", "subprocess"),
    ("#include <pqxx/pqxx>\n", "database"),
])
def test_cpp_side_effects(source, category):
    assert category in cpp(source).side_effects


# ---- resolver ------------------------------------------------------------------------------

def _resolve(tmp_path, files, rows):
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    ctx = ResolveContext(root=tmp_path, paths=frozenset(files))
    return c_resolver.resolve([ImportRow(*r) for r in rows], ctx)


def test_resolver(tmp_path):
    files = ["src/main.c", "src/util.h", "src/net/sock.c", "include/proj/api.h", "config.h",
             "lib/foo/include/foo.h", "lib/foo/src/foo.c", "include/foo.h",
             "third/deep/unique.h", "a/dup.h", "b/dup.h"]
    rows = [
        ("src/main.c", 1, '"util.h"', None, None),  # same folder
        ("src/net/sock.c", 2, '"../util.h"', None, None),  # relative with ..
        ("src/main.c", 3, '"proj/api.h"', None, None),  # an include/ folder
        ("src/main.c", 4, '"config.h"', None, None),  # workspace root
        ("lib/foo/src/foo.c", 5, '"foo.h"', None, None),  # the nearest include/ folder wins
        ("src/main.c", 6, '"deep/unique.h"', None, None),  # a unique path suffix
        ("src/main.c", 7, '"dup.h"', None, None),  # two candidates: unresolved
        ("src/main.c", 8, '"missing.h"', None, None),
        ("src/main.c", 9, "<stdio.h>", None, None),
        ("src/main.c", 10, "<util.h>", None, None),  # angle brackets: always external
    ]
    out = _resolve(tmp_path, files, rows)
    assert [[(t.path, t.strategy) for t in ts] for ts in out[:6]] == [
        [("src/util.h", "relative")], [("src/util.h", "relative")],
        [("include/proj/api.h", "include_dir")], [("config.h", "root")],
        [("lib/foo/include/foo.h", "include_dir")], [("third/deep/unique.h", "suffix")],
    ]
    assert out[6] == [] and out[7] == []
    assert out[8] == EXTERNAL and out[9] == EXTERNAL


def test_angle_includes_through_include_folders(tmp_path):
    files = ["src/enc/encode.c", "src/common/util.h", "c/include/brotli/types.h",
             "c/include/brotli/encode.h", "lib/foo/include/foo.h", "lib/foo/src/foo.c", "include/foo.h"]
    out = _resolve(tmp_path, files, [
        ("src/enc/encode.c", 1, "<brotli/types.h>", None, None),
        ("c/include/brotli/encode.h", 2, "<brotli/types.h>", None, None),
        ("lib/foo/src/foo.c", 3, "<foo.h>", None, None),  # the nearest include/ folder
        ("src/enc/encode.c", 4, "<stdio.h>", None, None),
        ("src/enc/encode.c", 5, "<common/util.h>", None, None),  # not an include folder
    ])
    assert [[(t.path, t.strategy) for t in ts] for ts in out[:3]] == [
        [("c/include/brotli/types.h", "include_dir")], [("c/include/brotli/types.h", "include_dir")],
        [("lib/foo/include/foo.h", "include_dir")]]
    assert out[3] == EXTERNAL and out[4] == EXTERNAL


def test_angle_includes_through_compile_commands(tmp_path):
    files = ["app/main.c", "app/gen/config.h", "lib/a/pub/api.h", "lib/b/pub/api.h", "lib/a/impl.c",
             "lib/a/impl.h", "include/api.h", "tool/t.c", "vendor/pub/x.h", "other/gen/config.h"]
    root = tmp_path.resolve().as_posix()
    db = [
        {"directory": f"{root}/build", "file": "../app/main.c",
         "arguments": ["cc", "-I../lib/b/pub", "-I", "../lib/a/pub", "-iquote", "../app/gen", "-c", "../app/main.c"]},
        {"directory": root, "file": f"{root}/lib/a/impl.c",
         "command": "cc -isystem vendor/pub -Ilib/a/pub -I/usr/include -c lib/a/impl.c"},
    ]
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "compile_commands.json").write_text(__import__("json").dumps(db))
    out = _resolve(tmp_path, files, [
        ("app/main.c", 1, "<api.h>", None, None),       # -I order: lib/b/pub first (not include/)
        ("lib/a/impl.c", 2, "<api.h>", None, None),     # its own entry: lib/a/pub
        ("lib/a/impl.c", 3, "<x.h>", None, None),       # -isystem
        ("lib/a/impl.h", 4, "<x.h>", None, None),       # a header: the union of the entries' folders
        ("app/main.c", 5, '"config.h"', None, None),    # quoted, two suffix matches: then -iquote
        ("app/main.c", 6, "<config.h>", None, None),    # -iquote is not searched for <...>
        ("tool/t.c", 7, "<stdlib.h>", None, None),
    ])
    assert [[(t.path, t.strategy) for t in ts] for ts in out[:5]] == [
        [("lib/b/pub/api.h", "compile_commands")], [("lib/a/pub/api.h", "compile_commands")],
        [("vendor/pub/x.h", "compile_commands")], [("vendor/pub/x.h", "compile_commands")],
        [("app/gen/config.h", "compile_commands")]]
    assert out[5] == EXTERNAL and out[6] == EXTERNAL


def test_includes_under_a_preprocessor_condition_are_marked(tmp_path):
    """An include inside #if/#ifdef/#ifndef (and their #else) holds in some builds only; a header's
    include guard, with or without `#pragma once` before it, is not a condition."""
    texts = {
        "src/main.c": ('#include "util.h"\n#ifdef HAVE_NET\n#include "net.h"\n#else\n#include "stub.h"\n'
                       '#endif\n#include <stdio.h>\n#include "last.h"\n'),
        "src/util.h": ('#pragma once\n#ifndef UTIL_H  /* guard */\n#define UTIL_H\n#include "net.h"\n'
                       '#if !defined(NO_STUB)\n#include "stub.h"\n#endif\n#endif\n'),
        "src/net.h": "", "src/stub.h": "", "src/last.h": "",
    }
    for rel, text in texts.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = ResolveContext(root=tmp_path, paths=frozenset(texts))
    rows = [ImportRow("src/main.c", 1, '"util.h"', None, None), ImportRow("src/main.c", 3, '"net.h"', None, None),
            ImportRow("src/main.c", 5, '"stub.h"', None, None), ImportRow("src/main.c", 7, "<stdio.h>", None, None),
            ImportRow("src/main.c", 8, '"last.h"', None, None), ImportRow("src/util.h", 4, '"net.h"', None, None),
            ImportRow("src/util.h", 6, '"stub.h"', None, None)]
    out = c_resolver.resolve(rows, ctx)
    assert [[(t.path, t.strategy) for t in ts] for ts in out] == [
        [("src/util.h", "relative")], [("src/net.h", "c_preprocessor")], [("src/stub.h", "c_preprocessor")],
        [(None, "external")], [("src/last.h", "relative")], [("src/net.h", "relative")],
        [("src/stub.h", "c_preprocessor")]]
