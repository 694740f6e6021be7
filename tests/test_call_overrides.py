"""A call guessed by name whose candidates are a method and its overrides (jinja2's
`tmpl.render()`: `Template.render` and `NativeTemplate.render`, a subclass in another file): each
override is a possible dispatch, marked `override` at half the guess's confidence; `impact` of
the override lists the caller only when asked for that confidence."""

import pytest

FILES = {
    "pkg/env.py": (
        "class Template:\n"
        "    def render(self):\n"
        "        return 1\n"
        "class Environment:\n"
        "    def from_string(self, s):\n"
        "        return make(s)\n"
        "def make(s):\n"
        "    return s\n"
    ),
    "pkg/native.py": (
        "from pkg.env import Template\n"
        "class NativeTemplate(Template):\n"
        "    def render(self):\n"
        "        return 2\n"
    ),
    "pkg/other.py": "class Report:\n    def render(self):\n        return 3\n",
    "pkg/use.py": "def go(env):\n    t = env.from_string('x')\n    return t.render()\n",
    "pkg/plain.py": "class Page:\n    def show(self):\n        return 4\nclass Card(Page):\n    pass\n"
                    "def look(p):\n    return p.show()\n",
}


def _edges(ws, path, line):
    return {(d, s, c) for d, s, c in ws.store.cursor().execute(
        "SELECT dst, strategy, confidence FROM edges WHERE kind = 'CALLS' AND src_path = ? AND line = ?",
        [path, line]).fetchall()}


def test_the_override_is_marked(ws):
    third = round(0.5 / 3, 4)
    got = {(d, s, round(c, 4)) for d, s, c in _edges(ws, "pkg/use.py", 3)}
    assert got == {
        ("pkg/env.py::Template.render", "name_ambiguous", third),
        ("pkg/other.py::Report.render", "name_ambiguous", third),
        ("pkg/native.py::NativeTemplate.render", "override", round(third / 2, 4)),
    }


def test_an_inherited_method_is_no_override(ws):
    assert _edges(ws, "pkg/plain.py", 7) == {("pkg/plain.py::Page.show", "name_unique", 0.5)}


def test_impact_of_an_override_lists_its_base_type_callers_when_asked(ws):
    shown = {d["symbol"] for d in ws.impact("pkg/native.py::NativeTemplate.render", depth=1)["dependents"]}
    assert "go" not in shown  # a possible dispatch is below the default confidence
    everything = ws.impact("pkg/native.py::NativeTemplate.render", depth=1, min_confidence=0.05)["dependents"]
    assert [(d["symbol"], d["confidence"]) for d in everything] == [("go", pytest.approx(0.5 / 3 / 2, abs=1e-3))]


@pytest.mark.parametrize("rel, text", [
    ("pkg/native.py", "from pkg.env import Template\nclass NativeTemplate(Template):\n    pass\n"),  # override gone
    ("pkg/native.py", "class NativeTemplate:\n    def render(self):\n        return 2\n"),  # base gone
    ("pkg/env.py", FILES["pkg/env.py"].replace("    def render(self):\n        return 1\n",
                                                "    def draw(self):\n        return 1\n")),  # base method gone
    ("pkg/plain.py", FILES["pkg/plain.py"].replace("    pass\n", "    def show(self):\n        return 5\n")),
])
def test_incremental_equals_fresh_when_an_override_comes_or_goes(tmp_path, write_files, rel, text):
    from test_call_returns import _edited_equals_fresh

    _edited_equals_fresh(tmp_path, write_files(tmp_path / "ws", FILES), rel, text)
