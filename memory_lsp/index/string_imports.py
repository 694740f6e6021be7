"""A module's symbol loaded by a string: in a Python file that calls `import_module` (or
`__import__`), a dotted string names what the call loads. mistune keeps its plugins as
`_plugins = {'speedup': 'mistune.plugins.speedup.speedup', ...}`; its `import_plugin(name)`
splits the path and calls `import_module`, so changing `speedup` changes what `import_plugin`
hands to every caller, and a test that asks for the plugin runs it.

Each such string becomes an import row of the module written as the string (quotes kept: the
Python resolver marks it `string`, and no IMPORTS edge is made of it, since the string may name
a module the program never loads), bound to the string's whole text (a name no statement can
bind, so it shadows nothing), and a call of that binding from the function that loads it: the
function the string is in when that function calls the loader; for a string at the module's
level, the loading functions that name the module-level variable it is assigned in (mistune's
`_plugins`), and the module itself when it calls the loader at its own level. A string naming no
symbol of the module resolves to nothing.
An f-string naming a module path before its one placeholder (typer's tutorial tests:
`importlib.import_module(f"docs_src.default.{request.param}")` in a fixture with `params=[pytest.param("tutorial001"),
...]`) is a plain import of that path with each pytest parameter's value of the file: the test runs the module;
and an f-string naming a module after its placeholder, a name (`import_module(f"{module_paths}.main")` in a fixture
using the fixture that returns the path above: typer's test_app02.py), an import of that module in each such path.
"""

from __future__ import annotations

import functools
import re

from memory_lsp.index import languages
from memory_lsp.index.facts import FileFacts, Import, Ref

LOADERS = ("import_module", "__import__")
_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
_FUNCTIONS = ("function", "method")
_PREFIX = re.compile(r"(?:[A-Za-z_]\w*\.)+")  # an f-string's module path before its placeholder
_SUFFIX = re.compile(r"(?:\.[A-Za-z_]\w*)+")  # and after it


@functools.lru_cache(maxsize=1)
def _strings_query():
    import tree_sitter

    return tree_sitter.Query(languages.ts_language("python"), "(string (string_content) @text)")


def add(facts: FileFacts, data: bytes, root) -> None:
    """Add to `facts` the import rows and calls the dotted strings of a Python file (`data`, parsed
    as `root`) amount to."""
    import tree_sitter

    if facts.lang != "python" or (b"import_module" not in data and b"__import__" not in data):
        return
    loaders = {r.src: r.src_class for r in facts.refs if r.kind == "call" and r.name in LOADERS}
    if not loaders:
        return
    # the functions, outer ones first: the last holding a line is the innermost
    functions = sorted((s.start_line, -s.end_line, s.qualname) for s in facts.symbols if s.kind in _FUNCTIONS)
    lines = data.split(b"\n")
    seen = set()
    captures = tree_sitter.QueryCursor(_strings_query()).captures(root).get("text", [])
    prefixes, params = [], []  # `f"docs_src.default.{request.param}"`; `pytest.param("tutorial001")`
    suffixes = []  # `f"{module_paths}.main"`: a fixture's module path (one of `prefixes`) and a module in it
    for node in sorted(captures, key=lambda n: n.start_byte):
        if node.parent.named_child_count != 3 or node.parent.parent.type == "concatenated_string":
            parts = [c.type for c in node.parent.named_children]  # an f-string's parts, or a piece of a longer string
            text = node.text.decode("utf-8", "replace")
            if parts == ["string_start", "string_content", "interpolation", "string_end"] and _PREFIX.fullmatch(text):
                prefixes.append((node.start_point[0] + 1, text))
            elif parts == ["string_start", "interpolation", "string_content", "string_end"] and _SUFFIX.fullmatch(text) \
                    and node.prev_named_sibling.named_child_count == 1 \
                    and node.prev_named_sibling.named_children[0].type == "identifier":
                suffixes.append((node.start_point[0] + 1, text))
            continue
        text = node.text.decode("utf-8", "replace")
        if text.isidentifier() and _a_param(node.parent):
            params.append(text)
        if not _DOTTED.fullmatch(text):
            continue
        line = node.start_point[0] + 1
        around = [(q, -e) for s, e, q in functions if s <= line <= -e]
        if around:
            srcs = [around[-1][0]] if around[-1][0] in loaders else []
        else:  # the loaders reading the module-level name the string is bound in, or the module's own
            holder = _holder(node)
            srcs = [s for s in loaders if s is None or holder and _reads(lines, facts.symbols, s, holder)]
        module, _, name = text.rpartition(".")
        if srcs and (text, line) not in seen:
            seen.add((text, line))
            facts.imports.append(Import(line, f'"{module}"', name, text))
        for src in srcs:
            facts.refs.append(Ref("call", src, loaders[src], text, None, line))
    # a module named by a parameter's value (typer's tutorial tests: `import_module(f"docs_src.default.{request.param}")`
    # in a fixture whose `params` are the modules' names): an import of each, bound to a name no statement can bind
    for line, prefix in prefixes:
        facts.imports += [Import(line, prefix + name, None, f'"{prefix}{name}"') for name in dict.fromkeys(params)]
    # and a module in such a path, the path handed on by the fixture's name (typer's test_app02.py:
    # `import_module(f"{module_paths}.main")` in a fixture using the `module_paths` fixture above)
    for line, suffix in suffixes:
        facts.imports += [Import(line, path, None, f'"{path}"') for path in
                          dict.fromkeys(prefix + name + suffix for _, prefix in prefixes for name in params)]


def _a_param(string) -> bool:
    """Whether the `string` node is a pytest parameter's value: in `params=[...]`, a `pytest.param(...)`
    call's arguments, or a `parametrize(...)` call's values (not its names, a string argument itself)."""
    node = string
    for _ in range(4):
        node = node.parent
        if node is None:
            return False
        if node.type == "keyword_argument" and (name := node.child_by_field_name("name")) is not None:
            return name.text == b"params"
        if node.type == "call" and (func := node.child_by_field_name("function")) is not None:
            called = func.text.rsplit(b".", 1)[-1]
            return called == b"param" or called == b"parametrize" and string.parent.type != "argument_list"
    return False


def _reads(lines: list[bytes], symbols, qualname: str, name: str) -> bool:
    """Whether the function `qualname`'s lines name `name`."""
    first, last = next((s.start_line, s.end_line) for s in symbols if s.qualname == qualname)
    return re.search(rb"\b%s\b" % re.escape(name.encode()), b"\n".join(lines[first - 1:last])) is not None


def _holder(node) -> str | None:
    """The module-level name whose assigned value holds the string `node` (`_plugins = {...}`)."""
    while node is not None and node.type != "module":
        if node.type == "assignment" and node.parent.type == "expression_statement" \
                and node.parent.parent is not None and node.parent.parent.type == "module":
            left = node.child_by_field_name("left")
            return left.text.decode("utf-8", "replace") if left is not None and left.type == "identifier" else None
        node = node.parent
    return None
