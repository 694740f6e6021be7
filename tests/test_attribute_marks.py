"""Calls on an attribute whose type another file or a base says (issue 12 item 1), found reading
werkzeug, a package never developed against, whose CALLS recall was 0.932: 135 of its 236 missed
sites were tests' `d = self.storage_class(); d.add(...)` with `storage_class = ds.Headers` in the
class body (a class held, `ds` a package whose __init__ re-exports Headers), and
`self.headers.get(...)` in a Response whose base in another file says `headers: Headers`; and
`response = self.response_wrapper(...)`, an attribute bound to what `t.cast(t.Type["TestResponse"], ...)`
says."""

import test_return_calls as return_calls
from test_return_calls import calls_at

from memory_lsp.index.extract import extract

FILES = {
    "pkg/__init__.py": "",
    "pkg/ds/__init__.py": ("from .headers import Headers as Headers\nfrom .headers import Other as Other\n"
                           "from .multi import MultiDict as MultiDict\nfrom .multi import OrderedMultiDict as OrderedMultiDict\n"),
    "pkg/ds/headers.py": ("class Headers:\n    def get(self, key):\n        return key\n\n\n"
                          "class Other:\n    def get(self, key):\n        return key\n"),
    "pkg/ds/multi.py": ("class MultiDict:\n    def add(self, k, v):\n        pass\n\n    def setlist(self, k, v):\n        pass\n\n\n"
                        "class OrderedMultiDict(MultiDict):\n    def add(self, k, v):\n        pass\n"),
    "pkg/base.py": "from pkg.ds import Headers\n\n\nclass BaseResponse:\n    headers: Headers\n",
    "pkg/response.py": ("from pkg.base import BaseResponse\n\n\nclass Response(BaseResponse):\n"
                        "    def etag(self):\n        return self.headers.get('etag')\n"),            # 6
    "pkg/client.py": ("import typing as t\n\nfrom pkg.response import Response\n\n\n"
                      "class TestResponse(Response):\n    pass\n\n\n"
                      "class Client:\n"
                      "    def __init__(self, wrapper=None):\n"
                      "        self.wrapper = t.cast(t.Type['TestResponse'], wrapper)\n\n"
                      "    def open(self, thing):\n"
                      "        response = self.wrapper()\n"
                      "        local = t.cast('Response', thing)\n"
                      "        tag = response.etag()\n"                                         # 17
                      "        return tag, local.etag()\n"),                                    # 18
    "tests/__init__.py": "",
    "tests/test_ds.py": (
        "import typing as t\n\nfrom pkg import ds\n\n\n"
        "class _MutableTests:\n"
        "    storage_class: t.Type['ds.MultiDict']\n\n"
        "    def test_setlist(self):\n"
        "        d = self.storage_class()\n"
        "        d.setlist('a', [1])\n\n\n"                                          # 11
        "class TestOrdered(_MutableTests):\n"
        "    storage_class = ds.OrderedMultiDict\n\n"
        "    def test_add(self):\n"
        "        d = self.storage_class()\n"
        "        d.add('a', 1)\n\n\n"                                                # 19
        "class TestHeaders:\n"
        "    storage_class = ds.Headers\n\n"
        "    def test_get(self):\n"
        "        self.storage_class().get('a')\n"),                                  # 26
}


def test_calls_on_attributes_typed_elsewhere(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "tests/test_ds.py", 11) == [("pkg/ds/multi.py::MultiDict.setlist", "returned")]
        assert calls_at(ws, "tests/test_ds.py", 19) == [("pkg/ds/multi.py::OrderedMultiDict.add", "returned")]
        assert calls_at(ws, "tests/test_ds.py", 26) == [("pkg/ds/headers.py::Headers", "module_attr"),  # made
                                                        ("pkg/ds/headers.py::Headers.get", "returned")]
        assert calls_at(ws, "pkg/response.py", 6) == [("pkg/ds/headers.py::Headers.get", "returned")]
        # what a cast says (werkzeug's Client: `self.response_wrapper = t.cast(t.Type["TestResponse"], ...)`)
        assert calls_at(ws, "pkg/client.py", 17) == [("pkg/response.py::Response.etag", "returned_inherited")]
        assert calls_at(ws, "pkg/client.py", 18) == [("pkg/response.py::Response.etag", "typed")]
    finally:
        ws.close()


def _edit_and_compare(tmp_path, write_files, path, old, new, site, want):
    return_calls._edit_and_compare(tmp_path, write_files, path, old, new, site, want, files=FILES)


def test_a_base_typing_its_attribute_otherwise_retypes_the_subclass_calls(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/base.py", "headers: Headers", "headers: 'Other'\nfrom pkg.ds import Other",
                      ("pkg/response.py", 6), [("pkg/ds/headers.py::Other.get", "returned")])


def test_a_held_class_renamed_away_leaves_no_edge(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/ds/headers.py", "    def get(self, key):\n        return key\n\n\nclass Other",
                      "    def fetch(self, key):\n        return key\n\n\nclass Other", ("tests/test_ds.py", 26), [])


def test_a_reexport_moved_retypes_the_held_class(tmp_path, write_files):
    _edit_and_compare(tmp_path, write_files, "pkg/ds/__init__.py", "from .headers import Headers as Headers\n",
                      "from .headers import Other as Headers\n", ("tests/test_ds.py", 26),
                      [("pkg/ds/headers.py::Other.get", "returned")])


def test_a_cast_types_from_its_line_on():
    # urllib3's HTTPHeaderDict.extend: a cast narrows in one branch; the branch above is not typed by it
    facts = extract("pkg/n.py", (
        "import typing as t\n\n"
        "def extend(*args):\n"
        "    other = args[0] if args else ()\n"
        "    if hasattr(other, 'keys'):\n"  # (an isinstance check would type line 6 itself)
        "        other.items()\n"                                   # 6
        "    else:\n"
        "        other = t.cast(t.Iterable[int], other)\n"
        "        other.items()\n").encode(), "python")            # 9
    assert {r.line: r.rtype for r in facts.refs if r.name == "items"} == {6: None, 9: "builtin"}


def test_a_property_of_the_class_types_its_attribute():
    # werkzeug's EnvironBuilder.close: `files = self.files.values()`, `files` a property `-> FileMultiDict`
    facts = extract("pkg/b.py", (
        "class Bag:\n    def values(self):\n        return []\n\n\n"
        "class Base:\n    @property\n    def files(self) -> Bag:\n        return Bag()\n\n"
        "    @files.setter\n    def files(self, value: Bag) -> None:\n        pass\n\n\n"
        "class Builder(Base):\n"
        "    def close(self):\n"
        "        return self.files.values()\n").encode(), "python")                  # 18
    assert {r.line: r.rtype for r in facts.refs if r.name == "values" and r.kind == "call"} == {18: "Bag"}
