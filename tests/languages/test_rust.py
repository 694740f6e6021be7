"""Rust: what the query captures (extract), how `mod`/`use` resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target
from memory_lsp.index.resolvers import rust as rust_resolver


def facts(source: str, path: str = "src/a.rs"):
    return extract(path, source.encode(), "rust")


# ---- extraction -------------------------------------------------------------------------

IMPORT_CASES = [
    ("mod foo;", [(1, "mod foo;", None, "foo")]),
    ("pub(crate) mod foo;", [(1, "pub(crate) mod foo;", None, "foo")]),
    ("mod inline { }", []),
    ("use crate::a::b::C;", [(1, "crate::a::b", "C", None)]),
    ("use std::fs;", [(1, "std", "fs", None)]),
    ("use serde;", [(1, "serde", None, None)]),
    ("use a::b as c;", [(1, "a", "b", "c")]),
    ("use x as y;", [(1, "x", None, "y")]),
    ("use super::super::z;", [(1, "super::super", "z", None)]),
    ("use q::r::*;", [(1, "q::r", "*", None)]),
    ("use a::{self, b, c::D, e as f, g::{h, i}};",
     [(1, "a", "self", "a"), (1, "a", "b", None), (1, "a", "c::D", "D"), (1, "a", "e", "f"),
      (1, "a", "g", None)]),
    ("use crate::m::{self};", [(1, "crate::m", "self", "m")]),
]


@pytest.mark.parametrize("source,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_import_captures(source, expected):
    assert sorted(facts(source).imports, key=str) == sorted(expected, key=str)


SOURCE = """\
use std::process::Command;

pub struct Foo { x: u8 }
pub enum Kind { A, B }
pub type Alias = u8;

pub trait Shape: Clone + fmt::Debug {
    fn area(&self) -> f64;
    fn twice(&self) -> f64 { self.area() * 2.0 }
}

impl Foo {
    pub fn new() -> Self { Self::make() }
    fn make() -> Self { fn inner() {} helper(); Foo { x: 0 } }
    fn set(&mut self) { self.x = 1; self.x += 2; }
}

impl<T> fmt::Display for Wrapper<T> {
    fn fmt(&self) { x.bar(); std::fs::write(); baz::<u8>(); v.iter().collect::<Vec<_>>(); }
}

mod tests {
    fn t() { helper(); }
}

fn helper() { Command::new("ls"); }
"""


def test_definitions():
    syms = {(s[0], s[2], s[5]) for s in facts(SOURCE).symbols}
    assert syms == {
        ("Foo", "struct", None), ("Kind", "enum", None), ("Alias", "type", None),
        ("Shape", "trait", None), ("Shape.area", "method", "Shape"), ("Shape.twice", "method", "Shape"),
        ("Foo.new", "method", "Foo"), ("Foo.make", "method", "Foo"),
        ("Foo.make.inner", "function", "Foo.make"), ("Foo.set", "method", "Foo"),
        ("Wrapper.fmt", "method", "Wrapper"),
        ("tests", "module", None), ("tests.t", "function", "tests"),
        ("helper", "function", None),
    }


def test_calls():
    calls = {(r[1], r[2], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "call"}
    assert calls == {
        ("Shape.twice", "Shape", "area", "self"),
        ("Foo.new", "Foo", "make", "Self"),
        ("Foo.make", "Foo", "helper", None),
        ("Wrapper.fmt", "Wrapper", "bar", "x"),
        ("Wrapper.fmt", "Wrapper", "write", "std::fs"),
        ("Wrapper.fmt", "Wrapper", "baz", None),
        ("Wrapper.fmt", "Wrapper", "iter", "v"),
        ("Wrapper.fmt", "Wrapper", "collect", "v.iter()"),
        ("tests.t", None, "helper", None),
        ("helper", None, "new", "Command"),
    }


def test_inheritance():
    inherits = {(r[1], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "inherit"}
    assert inherits == {("Shape", "Clone", None), ("Shape", "Debug", "fmt"),
                        ("Wrapper", "Display", "fmt")}


def test_mutations_and_side_effects():
    f = facts(SOURCE)
    assert f.mutations == 2
    assert set(f.side_effects) == {"subprocess", "file_io"}  # Command::new, std::fs::write
    assert facts("use std::fs;").side_effects == ["file_io"]
    assert facts("use std::fs::File;").side_effects == ["file_io"]
    assert set(facts("use std::{fs, net::TcpStream};").side_effects) == {"network", "file_io"}
    assert facts("use reqwest::Client;").side_effects == ["network"]
    assert facts("use sqlx::PgPool;").side_effects == ["database"]
    assert facts("use redis::Commands;").side_effects == ["cache"]
    assert facts("fn f() { std::fs::read(\"x\"); }").side_effects == ["file_io"]
    assert facts("use std::collections::HashMap;").side_effects == []


def test_test_files():
    assert facts("", "tests/it.rs").is_test
    assert facts("", "src/parser_test.rs").is_test
    assert not facts("", "src/lib.rs").is_test


# ---- import resolution --------------------------------------------------------------------

FILES = {
    "Cargo.toml": '[package]\nname = "my-lib"\n',
    "src/lib.rs": "mod foo;\nmod bar;\npub mod a;\n",
    "src/foo.rs": "",
    "src/bar/mod.rs": "",
    "src/a.rs": "pub mod b;\n",
    "src/a/b.rs": "pub mod deep;\n",
    "src/a/b/deep.rs": "",
    "src/x.rs": "mod child;\nmod tests {\n    use super::*;\n    use super::super::foo;\n}\n",
    "src/x/child.rs": "",
    "src/main.rs": "",
    "src/bin/tool.rs": "mod helper;\n",
    "src/bin/helper.rs": "",
    "tests/it.rs": "mod common;\n",
    "tests/common/mod.rs": "",
}


@pytest.fixture
def ctx(tmp_path):
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return ResolveContext(root=tmp_path, paths=frozenset(p for p in FILES if p.endswith(".rs")))


RESOLVE_CASES = [
    # (importing file, line, module, name, expected)
    ("src/lib.rs", 1, "mod foo;", None, [Target("src/foo.rs", True, "mod")]),
    ("src/lib.rs", 2, "mod bar;", None, [Target("src/bar/mod.rs", True, "mod")]),
    ("src/lib.rs", 1, "mod missing;", None, []),
    ("src/a.rs", 1, "pub mod b;", None, [Target("src/a/b.rs", True, "mod")]),
    ("src/a/b.rs", 1, "pub mod deep;", None, [Target("src/a/b/deep.rs", True, "mod")]),
    ("src/x.rs", 1, "mod child;", None, [Target("src/x/child.rs", True, "mod")]),
    ("src/bin/tool.rs", 1, "mod helper;", None, [Target("src/bin/helper.rs", True, "mod")]),
    ("tests/it.rs", 1, "mod common;", None, [Target("tests/common/mod.rs", True, "mod")]),
    ("src/foo.rs", 1, "crate::a", "b", [Target("src/a/b.rs", True, "crate")]),
    ("src/foo.rs", 1, "crate::a::b", "Thing", [Target("src/a/b.rs", False, "crate")]),
    ("src/foo.rs", 1, "crate::a::b::deep", "Item", [Target("src/a/b/deep.rs", False, "crate")]),
    ("src/foo.rs", 1, "crate::a::b", "*", [Target("src/a/b.rs", True, "crate")]),
    ("src/foo.rs", 1, "crate::a", "self", [Target("src/a.rs", True, "crate")]),
    ("src/foo.rs", 1, "crate", "helper", [Target("src/lib.rs", False, "crate")]),
    ("src/a/b.rs", 1, "super", "Thing", [Target("src/a.rs", False, "relative")]),
    ("src/a/b.rs", 1, "super::super", "foo", [Target("src/foo.rs", True, "relative")]),
    ("src/a/b.rs", 1, "self::deep", "Item", [Target("src/a/b/deep.rs", False, "relative")]),
    ("src/a.rs", 1, "b", "Thing", [Target("src/a/b.rs", False, "relative")]),  # 2018 child path
    ("src/x.rs", 3, "super", "*", [Target("src/x.rs", True, "relative")]),  # in `mod tests {}`
    ("src/x.rs", 4, "super::super", "foo", [Target("src/foo.rs", True, "relative")]),
    ("src/lib.rs", 1, "super", "x", []),  # no module above the crate root
    ("tests/it.rs", 1, "my_lib::a", "b", [Target("src/a/b.rs", True, "crate_name")]),
    ("src/foo.rs", 1, "std", "fs", EXTERNAL),
    ("src/foo.rs", 1, "std::collections", "HashMap", EXTERNAL),
    ("src/foo.rs", 1, "serde", None, EXTERNAL),
    ("src/foo.rs", 1, "::core::mem", "swap", EXTERNAL),
]


@pytest.mark.parametrize("path,line,module,name,expected", RESOLVE_CASES,
                         ids=[f"{c[0]}:{c[2]}::{c[3]}" for c in RESOLVE_CASES])
def test_resolve(ctx, path, line, module, name, expected):
    assert rust_resolver.resolve([ImportRow(path, line, module, name, None)], ctx) == [expected]


def test_crate_root_of_nested_bin(tmp_path):
    paths = frozenset({"src/lib.rs", "src/bin/tool/main.rs", "src/bin/tool/cli.rs"})
    assert rust_resolver.crate_root("src/bin/tool/cli.rs", paths) == ("src/bin/tool/main.rs", "src/bin/tool")
    assert rust_resolver.crate_root("src/a/b.rs", paths) == ("src/lib.rs", "src")


CFG_FILES = {
    "Cargo.toml": '[package]\nname = "cfgd"\n',
    "src/lib.rs": (
        "mod plain;\n"
        "#[cfg(unix)]\n#[allow(dead_code)]\nmod unix;\n"
        "#[cfg(any(\n    target_os = \"windows\",\n    doc))]\npub mod windows;\n"
        "#[path = \"platform/special.rs\"]\nmod special;\n"
        "#[cfg_attr(test, path = \"fake_io.rs\")]\nmod io;\n"
        "use crate::plain::P;\n"
        "use crate::unix::U;\n"
        "#[cfg(feature = \"x\")]\nuse crate::plain::Q;\n"
        "#[cfg(test)]\nmod tests {\n    use super::plain::P;\n    mod fixtures;\n}\n"
    ),
    "src/plain.rs": "use crate::unix::U;\npub struct P;\n",
    "src/unix.rs": "mod detail;\nuse crate::plain::P;\npub struct U;\n",
    "src/unix/detail.rs": "use crate::plain::P;\n",
    "src/windows.rs": "",
    "src/platform/special.rs": "",
    "src/io.rs": "", "src/fake_io.rs": "",
    "src/tests/fixtures.rs": "use crate::plain::P;\n",
    "src/only_linux.rs": "#![cfg(target_os = \"linux\")]\nuse crate::plain::P;\n",
}


def _resolved(tmp_path, files: dict[str, str]) -> tuple[ResolveContext, set]:
    """The workspace written, every .rs file's imports extracted and resolved: (context, edges)."""
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = ResolveContext(root=tmp_path, paths=frozenset(p for p in files if p.endswith(".rs")))
    rows = [ImportRow(path, *imp) for path in sorted(ctx.paths)
            for imp in extract(path, files[path].encode(), "rust").imports]
    return ctx, {(row.path, t.path, t.strategy) for row, ts in zip(rows, rust_resolver.resolve(rows, ctx))
                 for t in (ts if ts != EXTERNAL else [])}


def test_cfg_marks_edges_conditional(tmp_path):
    ctx, got = _resolved(tmp_path, CFG_FILES)
    assert got == {
        ("src/lib.rs", "src/plain.rs", "mod"),
        ("src/lib.rs", "src/unix.rs", "rust_cfg"),            # #[cfg] among other attributes
        ("src/lib.rs", "src/windows.rs", "rust_cfg"),         # a cfg over several lines
        ("src/lib.rs", "src/platform/special.rs", "mod_path"),
        ("src/lib.rs", "src/fake_io.rs", "rust_cfg"),         # cfg_attr(path): either file
        ("src/lib.rs", "src/io.rs", "rust_cfg"),
        ("src/lib.rs", "src/plain.rs", "crate"),              # use crate::plain::P, plain
        ("src/lib.rs", "src/unix.rs", "rust_cfg"),            # a plain `use` into a cfg'd module
        ("src/lib.rs", "src/plain.rs", "rust_cfg"),           # the use under #[cfg], in the test mod
        ("src/lib.rs", "src/tests/fixtures.rs", "rust_cfg"),  # mod inside #[cfg(test)] mod tests
        ("src/plain.rs", "src/unix.rs", "rust_cfg"),
        ("src/unix.rs", "src/unix/detail.rs", "rust_cfg"),    # from a cfg'd file
        ("src/unix.rs", "src/plain.rs", "rust_cfg"),
        ("src/unix/detail.rs", "src/plain.rs", "rust_cfg"),   # its parent module is cfg'd
        ("src/tests/fixtures.rs", "src/plain.rs", "rust_cfg"),
        ("src/only_linux.rs", "src/plain.rs", "rust_cfg"),    # #![cfg] on the file itself
    }
    assert not rust_resolver.is_gated(ctx, "src/plain.rs")
    assert rust_resolver.is_gated(ctx, "src/unix/detail.rs")


CFG_IF_FILES = {
    "Cargo.toml": '[package]\nname = "k"\n',
    "src/lib.rs": ("mod plain;\ncfg_if::cfg_if! {\n    if #[cfg(unix)] {\n        mod unix;\n"
                   "        pub use self::unix::*;\n    } else if #[cfg(windows)] {\n        pub(crate) mod windows;\n"
                   "    } else {\n        mod fallback { pub fn f() {} }\n    }\n}\n"
                   "cfg_if! { if #[cfg(feature = \"x\")] { mod x; } }\nother! { { mod nope; } }\n"),
    "src/plain.rs": "pub fn p() {}\n",
    "src/unix.rs": "mod detail;\npub fn u() {}\n",
    "src/unix/detail.rs": "use crate::plain::p;\n",
    "src/windows.rs": "", "src/x.rs": "", "src/nope.rs": "",
}


def test_cfg_if_modules_are_edges_marked_conditional(tmp_path):
    """`cfg_if!` (the crate most platform code uses) declares modules inside a macro, where the
    grammar sees tokens, not items: each `mod x;` of a branch is an edge marked rust_cfg, and the
    modules below it are gated too; another macro's tokens declare nothing."""
    assert [(i.line, i.module, i.alias) for i in extract("src/lib.rs", CFG_IF_FILES["src/lib.rs"].encode(), "rust").imports] == [
        (1, "mod plain;", "plain"), (4, "mod", "unix"), (7, "mod", "windows"), (12, "mod", "x")]
    ctx, got = _resolved(tmp_path, CFG_IF_FILES)
    assert got == {
        ("src/lib.rs", "src/plain.rs", "mod"),
        ("src/lib.rs", "src/unix.rs", "rust_cfg"),
        ("src/lib.rs", "src/windows.rs", "rust_cfg"),
        ("src/lib.rs", "src/x.rs", "rust_cfg"),
        ("src/unix.rs", "src/unix/detail.rs", "rust_cfg"),   # below a module cfg_if declares
        ("src/unix/detail.rs", "src/plain.rs", "rust_cfg"),
    }
    assert rust_resolver.is_gated(ctx, "src/unix/detail.rs") and not rust_resolver.is_gated(ctx, "src/plain.rs")
