"""A class a function hands on by name runs where it is taken (index/handed.py): pinned
on a small workspace indexed for real, as pathspec's tests meet it. `list(map(Pattern, lines))` in a
test, and `factory = Pattern` handed to another file's function that calls it, select the pattern's
file; a type check, a tuple, a docstring or module-level code select nothing.
"""

from __future__ import annotations


from memory_lsp.index.extract import extract

FILES = {
    "pkg/__init__.py": "",
    "pkg/pattern.py": "class Pattern:\n    def __init__(self, line):\n        self.line = line.strip()\n\n\n"
                      "class Checked:\n    def __init__(self, line):\n        self.line = line\n",
    "pkg/spec.py": ("def from_lines(factory, lines):\n    return [factory(line) for line in lines]\n"),
    "pkg/gitignore.py": ("from pkg.pattern import Pattern\nfrom pkg.spec import from_lines\n\n\n"
                         "def ignore_lines(lines, factory=None):\n    if factory is None:\n        factory = Pattern\n"
                         "    return from_lines(factory, lines)\n"),
    "pkg/check.py": ("from pkg.pattern import Checked\n\n\n"
                     "def is_checked(x):\n    \"\"\"Whether x is one (Checked).\"\"\"\n"
                     "    return isinstance(x, Checked) or isinstance(x, (Checked, int))\n"),
    "tests/test_map.py": ("from pkg.pattern import Pattern\n\n\n"
                          "def test_map():\n    assert len(list(map(Pattern, ['a', 'b']))) == 2\n"),
    "tests/test_ignore.py": ("from pkg.gitignore import ignore_lines\n\n\n"
                             "def test_ignore():\n    assert ignore_lines(['a'])\n"),
    "tests/test_check.py": ("from pkg.check import is_checked\n\n\n"
                            "def test_check():\n    assert not is_checked(1)\n"),
}


def test_a_class_handed_to_map_selects_its_test(ws):
    assert ws.impact("pkg/pattern.py::Pattern", depth=3)["tests"] == ["tests/test_ignore.py", "tests/test_map.py"]


def test_a_type_check_selects_nothing(ws):
    assert ws.impact("pkg/pattern.py::Checked", depth=3)["tests"] == []


def test_a_handed_class_is_a_dependent(ws):
    callers = {(d["path"], d["symbol"]) for d in ws.impact("pkg/pattern.py::Pattern", depth=1)["dependents"]}
    assert {("tests/test_map.py", "test_map"), ("pkg/gitignore.py", "ignore_lines")} <= callers


def handed(text: str) -> set[tuple[str, str | None, str]]:
    facts = extract("pkg/m.py", text.encode(), "python")
    return {(r.src, r.receiver, r.name) for r in facts.refs if r.kind == "call" and r.name in ("Pattern", "local_fn")}


def test_which_text_hands_a_name_on():
    head = "from pkg.pattern import Pattern\nfrom pkg import pattern\n\n\ndef local_fn():\n    pass\n\n\n"
    assert handed(head + "def f(xs):\n    return sorted(xs, key=local_fn), map(Pattern, xs)\n") == {
        ("f", None, "Pattern")}  # a function handed on is no row (index/handed.py)
    assert handed(head + "def f(xs):\n    return run(target=Pattern)\n") == {("f", None, "Pattern")}
    assert handed(head + "def f(xs):\n    g = pattern.Pattern\n    return g\n") == {("f", "pattern", "Pattern")}
    assert handed(head + "def f(xs):\n    return run(\n        Pattern,\n        xs)\n") == {("f", None, "Pattern")}
    for text in ("def f(x):\n    return isinstance(x, Pattern)\n",  # a type check
                 "def f(x):\n    return issubclass(x, (int, Pattern))\n",
                 "def f(x):\n    y = Pattern, int\n    return y\n",  # a tuple
                 "def f(x):\n    return [Pattern, local_fn]\n",  # a list
                 "def f(x):\n    return x == Pattern\n",
                 "def f(x):\n    \"\"\"Like map(Pattern, x).\"\"\"\n",  # prose
                 "def f(x):\n    # map(Pattern, x)\n    pass\n",
                 "class C(Pattern):\n    pass\n",  # a base
                 "register(Pattern)\n",  # module-level code
                 "def f(x):\n    return super(Pattern, x).m()\n"):
        assert handed(head + text) == set(), text
