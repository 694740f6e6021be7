"""An exception made to be raised runs its construction for its maker, nothing else its class holds
(graph/tests_raised.py), pinned on a small workspace indexed for real: `check` raises an HTTPError
whose `get_response` a test calls through an untyped receiver; a test that only makes `check`
raise runs HTTPError's `__init__`, not `get_response`. A raised subclass runs its base's
`__init__`. The `raised` references (index/extract.py) make no edge of their own.
"""

from __future__ import annotations

import pytest

from memory_lsp.index.extract import extract
from memory_lsp.store import test_reads

FILES = {  # one helper per method, so the helper says which tests ran it
    "pkg/__init__.py": "",
    "pkg/helpers.py": "def built_helper():\n    return 1\n\n\ndef response_helper():\n    return 2\n",
    "pkg/errors.py": ("from pkg.helpers import built_helper, response_helper\n\n\n"
                      "class HTTPError(Exception):\n    def __init__(self, msg=''):\n        self.msg = built_helper()\n\n"
                      "    def get_response(self):\n        return response_helper()\n"),
    "pkg/notfound.py": "from pkg.errors import HTTPError\n\n\nclass NotFound(HTTPError):\n    pass\n",
    "pkg/app.py": ("from pkg.errors import HTTPError\nfrom pkg.notfound import NotFound\n\n\n"
                   "def check(n):\n    if n < 0:\n        raise HTTPError('negative') from None\n    return n\n\n\n"
                   "def lookup(key):\n    raise NotFound(key)\n\n\n"
                   "def keep(n):\n    error = HTTPError('kept')\n    if n:\n        raise HTTPError('raised')\n    return error\n\n\n"
                   "def bad(n):\n    raise ValueError(n)\n"),
    "tests/test_check.py": ("import pytest\nfrom pkg.app import check\n\n\n"
                            "def test_check():\n    with pytest.raises(Exception):\n        check(-1)\n"),
    # the untyped call that makes HTTPError hold get_response for the class's makers (graph/tests_held.py)
    "tests/test_response.py": ("import pytest\nfrom pkg.app import check\n\n\n"
                               "def test_response():\n    with pytest.raises(Exception) as info:\n        check(-1)\n"
                               "    assert info.value.get_response() == 2\n"),
    "tests/test_lookup.py": ("import pytest\nfrom pkg.app import lookup\n\n\n"
                             "def test_lookup():\n    with pytest.raises(Exception):\n        lookup('k')\n"),
}


def selected_for(ws, helper: str) -> list[str]:
    return ws.impact(f"pkg/helpers.py::{helper}", depth=3)["tests"]


def test_a_raised_instance_runs_its_construction_not_what_its_class_holds(ws):
    # test_check makes check raise: HTTPError.__init__ runs, get_response does not
    assert selected_for(ws, "response_helper") == ["tests/test_response.py"]
    assert "tests/test_check.py" in selected_for(ws, "built_helper")


def test_a_raised_subclass_runs_its_bases_construction(ws):
    # NotFound has no __init__ of its own: raising one runs HTTPError's
    assert "tests/test_lookup.py" in selected_for(ws, "built_helper")
    assert "tests/test_lookup.py" not in selected_for(ws, "response_helper")


def test_a_caller_is_read_as_raising_when_every_call_of_the_name_is_raised(ws):
    raised = test_reads.unresolved_calls(ws.store.cursor())["raised"]
    assert sorted(zip(raised["src"].tolist(), raised["name"].tolist())) == [
        ("pkg/app.py::check", "HTTPError"), ("pkg/app.py::lookup", "NotFound")]  # not keep: it also keeps one;
    # not bad: Python's ValueError (no edge goes there)


def test_raised_references_make_no_edge_of_their_own(ws, symbol_edges):
    assert ("pkg/app.py::check", "pkg/errors.py::HTTPError") in symbol_edges(ws, "CALLS")
    assert not {e for e in symbol_edges(ws, "INHERITS") if e[0].startswith("pkg/app.py::")}


def test_the_raised_references_extraction_gives():
    source = (b"import errors\n\n\ndef f(e):\n    raise Err('x') from e\n\n\ndef g():\n    raise errors.Other()\n\n\n"
              b"def h(e):\n    raise e\n\n\ndef k():\n    raise wrap(Err('y'))\n\n\ndef m():\n    return Err('z')\n")
    refs = extract("m.py", source, "python").refs
    assert sorted((r.src, r.name, r.receiver, r.line) for r in refs if r.kind == "raised") == [
        ("f", "Err", None, 5), ("g", "Other", "errors", 9), ("k", "wrap", None, 17)]
    assert sum(r.kind == "call" and r.name == "Err" for r in refs) == 3  # each raised call is a call too
