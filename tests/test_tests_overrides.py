"""A method overriding one that a base calls on self runs for whoever makes its class (graph/
tests_held.py): click's `BaseCommand.make_context` calls `self.parse_args(...)`, which for a
Command runs `Command.parse_args`. The CALLS edge names the base's method (as jedi does), so before,
test selection never reached the override: asked which tests run `Sub.step`, it listed none."""

from __future__ import annotations


FILES = {
    "pkg/__init__.py": "",
    "pkg/helpers.py": "def step_helper():\n    return 1\n\n\ndef base_helper():\n    return 2\n",
    "pkg/base.py": ("from pkg.helpers import base_helper\n\n\n"
                    "class Base:\n    def run(self):\n        return self.step()\n\n"
                    "    def step(self):\n        return base_helper()\n"),
    "pkg/sub.py": ("from pkg.base import Base\nfrom pkg.helpers import step_helper\n\n\n"
                   "class Sub(Base):\n    def step(self):\n        return step_helper()\n"),
    "pkg/deeper.py": "from pkg.sub import Sub\n\n\nclass Deeper(Sub):\n    pass\n",
    "pkg/plain.py": "from pkg.base import Base\n\n\nclass Plain(Base):\n    pass\n",
    "tests/test_sub.py": "from pkg.sub import Sub\n\n\ndef test_sub():\n    assert Sub().run() == 1\n",
    "tests/test_deeper.py": "from pkg.deeper import Deeper\n\n\ndef test_deeper():\n    assert Deeper().run() == 1\n",
    "tests/test_plain.py": "from pkg.plain import Plain\n\n\ndef test_plain():\n    assert Plain().run() == 2\n",
}


def test_an_override_of_a_method_called_on_self_runs_for_its_makers(ws, symbol_edges):
    assert ("pkg/base.py::Base.run", "pkg/base.py::Base.step") in symbol_edges(ws, "CALLS")
    assert not [e for e in symbol_edges(ws, "CALLS") if e[1] == "pkg/sub.py::Sub.step"]
    # making a Sub (or a subclass of it) may run Sub.step; making a Plain does not
    assert ws.impact("pkg/helpers.py::step_helper", depth=3)["tests"] == ["tests/test_deeper.py", "tests/test_sub.py"]
    assert ws.impact("pkg/sub.py::Sub.step", depth=3)["tests"] == ["tests/test_deeper.py", "tests/test_sub.py"]
    # the base's own method runs for a Plain (which inherits it)
    assert "tests/test_plain.py" in ws.impact("pkg/helpers.py::base_helper", depth=3)["tests"]
