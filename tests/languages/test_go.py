"""Go: what the query captures (extract), how imports resolve (the indexed graph: tests/contracts)."""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext, Target
from memory_lsp.index.resolvers import go as go_resolver


def facts(source: str, path: str = "server/server.go"):
    return extract(path, source.encode(), "go")


# ---- extraction -------------------------------------------------------------------------

IMPORT_CASES = [
    ('import "fmt"', [(2, '"fmt"', None, None)]),
    ('import u "example.com/m/util"', [(2, '"example.com/m/util"', None, "u")]),
    ('import (\n\t"os"\n\t_ "github.com/lib/pq"\n\t. "strings"\n)',
     [(3, '"os"', None, None), (4, '"github.com/lib/pq"', None, "_"), (5, '"strings"', None, ".")]),
]


@pytest.mark.parametrize("source,expected", IMPORT_CASES, ids=[c[0] for c in IMPORT_CASES])
def test_import_captures(source, expected):
    assert sorted(facts("package m\n" + source + "\n").imports) == sorted(expected)


SOURCE = """\
package server

import (
	"fmt"
	"os"
	"os/exec"
)

type Base struct{}

type Server struct {
	Base
	*Other
	pkg.Embedded
	name string
}

type Handler interface {
	io.Reader
	Serve(x int) error
}

type Stack[T any] struct{ items []T }
type ID int
type Alias = string

func (s *Server) Handle() {
	fmt.Println("hi")
	s.name = "x"
	s.count++
	if true {
		s.other = 1
	}
	helper()
	s.log()
}

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (ID) String() string { return "" }

func helper() {
	exec.Command("ls").Run()
	os.WriteFile("f", nil, 0o644)
}
"""


def test_definitions():
    syms = {(s[0], s[2], s[5]) for s in facts(SOURCE).symbols}
    assert syms == {
        ("Base", "struct", None), ("Server", "struct", None),
        ("Handler", "interface", None), ("Handler.Serve", "method", "Handler"),
        ("Stack", "struct", None), ("ID", "type", None), ("Alias", "type", None),
        ("Server.Handle", "method", "Server"), ("Stack.Push", "method", "Stack"),
        ("ID.String", "method", "ID"), ("helper", "function", None),
    }


def test_calls():
    calls = {(r[1], r[2], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "call"}
    assert ("Server.Handle", "Server", "Println", "fmt") in calls
    assert ("Server.Handle", "Server", "helper", None) in calls
    assert ("Server.Handle", "Server", "log", "s") in calls
    assert ("helper", None, "Command", "exec") in calls
    assert ("helper", None, "Run", 'exec.Command("ls")') in calls
    assert ("Stack.Push", "Stack", "append", None) in calls


def test_embedding_is_inheritance():
    inherits = {(r[1], r[3], r[4]) for r in facts(SOURCE).refs if r[0] == "inherit"}
    assert inherits == {("Server", "Base", None), ("Server", "Other", None),
                        ("Server", "Embedded", "pkg"), ("Handler", "Reader", "io")}


def test_mutations_and_side_effects():
    f = facts(SOURCE)
    # s.name = , s.count++ and s.items = ; the write inside `if` is out of the query's reach
    assert f.mutations == 3
    assert set(f.side_effects) == {"subprocess", "file_io"}
    assert facts('package m\nimport "net/http"\n').side_effects == ["network"]
    assert facts('package m\nimport "database/sql"\n').side_effects == ["database"]
    assert facts('package m\nimport "net/url"\n').side_effects == []
    assert facts('package m\nfunc f() { os.Open("x") }\n').side_effects == ["file_io"]


def test_test_files():
    assert facts("package server\n", "server/server_test.go").is_test
    assert not facts("package server\n", "server/server.go").is_test


# ---- import resolution --------------------------------------------------------------------

def _ctx(tmp_path, files: dict[str, str]) -> ResolveContext:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return ResolveContext(root=tmp_path, paths=frozenset(p for p in files if p.endswith(".go")))


RESOLVE_CASES = [
    ("main.go", '"example.com/m/util"', [Target("util/a.go", True, "go_package"),
                                         Target("util/b.go", True, "go_package")]),
    ("main.go", '"example.com/m"', [Target("main.go", True, "go_package")]),
    ("main.go", '"example.com/m/missing"', []),
    ("main.go", '"fmt"', EXTERNAL),
    ("main.go", '"github.com/other/lib"', EXTERNAL),
    ("main.go", '"github.com/vend/pkg"', [Target("vendor/github.com/vend/pkg/p.go", True, "go_vendor")]),
    ("tools/gen/main.go", '"example.com/tools/internal/x"',
     [Target("tools/internal/x/x.go", True, "go_package")]),
    ("tools/gen/main.go", '"example.com/m/util"', [Target("util/a.go", True, "go_package"),
                                                   Target("util/b.go", True, "go_package")]),
]


@pytest.mark.parametrize("importer,module,expected", RESOLVE_CASES, ids=[c[1] for c in RESOLVE_CASES])
def test_resolve(tmp_path, importer, module, expected):
    ctx = _ctx(tmp_path, {
        "go.mod": "module example.com/m\n\ngo 1.22\n",
        "main.go": "package main\n",
        "util/a.go": "package util\n",
        "util/b.go": "package util\n",
        "util/a_test.go": "package util\n",
        "vendor/github.com/vend/pkg/p.go": "package pkg\n",
        # a nested module: its own go.mod, in a folder without .go files of its own
        "tools/go.mod": 'module "example.com/tools"\n',
        "tools/gen/main.go": "package main\n",
        "tools/internal/x/x.go": "package x\n",
    })
    [found] = go_resolver.resolve([ImportRow(importer, 1, module, None, None)], ctx)
    assert sorted(found) == sorted(expected)


def test_resolve_without_go_mod(tmp_path):
    ctx = _ctx(tmp_path, {"main.go": "package main\n", "util/a.go": "package util\n"})
    assert go_resolver.resolve([ImportRow("main.go", 1, '"util"', None, None)], ctx) == [EXTERNAL]


@pytest.mark.parametrize("path,constrained", [
    ("a/x_linux.go", True), ("a/x_windows_amd64.go", True), ("a/x_arm64_test.go", True),
    ("a/linux.go", False), ("a/x_linuxy.go", False), ("a/x_amd64_linux.go", True),  # its last part is a GOOS
    ("a/syscall_unix.go", False),  # `unix` is a build tag, not a GOOS: go/build does not read it
    ("a/plain.go", False),
])
def test_file_name_constraints(path, constrained):
    assert go_resolver.suffix_constrained(path) is constrained


def test_build_constrained_files_keep_marked_edges(tmp_path):
    ctx = _ctx(tmp_path, {
        "go.mod": "module example.com/m\n",
        "main.go": "package main\n",
        "cmd/tool.go": "// Copyright\n\n//go:build tools\n\npackage main\n",
        "util/a.go": "// Package util.\npackage util\n",
        "util/b_windows.go": "package util\n",
        "util/c.go": "/* a\nblock */\n// +build linux darwin\n\npackage util\n",
        "util/d.go": "package util\n\n//go:build ignore is not a constraint after the package clause\n",
        "other/o.go": "package other\n",
    })
    rows = [ImportRow("main.go", 1, '"example.com/m/util"', None, None),
            ImportRow("cmd/tool.go", 1, '"example.com/m/other"', None, None),
            ImportRow("cmd/tool.go", 2, '"fmt"', None, None)]
    out = go_resolver.resolve(rows, ctx)
    assert sorted((t.path, t.strategy) for t in out[0]) == [
        ("util/a.go", "go_package"), ("util/b_windows.go", "go_build_tag"),
        ("util/c.go", "go_build_tag"), ("util/d.go", "go_package")]
    assert out[1] == [Target("other/o.go", True, "go_build_tag")]  # from a constrained file
    assert out[2] == EXTERNAL


def test_cgo_files_keep_marked_edges(tmp_path):
    """go/build leaves a file that imports "C" out when cgo is disabled: its edges are conditional;
    a "C" string after the imports is not cgo."""
    ctx = _ctx(tmp_path, {
        "go.mod": "module example.com/m\n",
        "main.go": "package main\n",
        "sys/plain.go": 'package sys\n\nimport "fmt"\n\nvar names = []string{\n\t"C"\n}\n',
        "sys/cgo.go": 'package sys\n\n// #include <unistd.h>\nimport "C"\n\nfunc Page() int { return 0 }\n',
        "sys/group.go": 'package sys\n\nimport (\n\t"fmt"\n\t"C"\n)\n',
    })
    out = go_resolver.resolve([ImportRow("main.go", 1, '"example.com/m/sys"', None, None)], ctx)
    assert sorted((t.path, t.strategy) for t in out[0]) == [
        ("sys/cgo.go", "go_build_tag"), ("sys/group.go", "go_build_tag"), ("sys/plain.go", "go_package")]
