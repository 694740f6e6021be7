"""Test selection's two rules read from webob's false pairs (bench/BENCHMARKS.md co):

- a name guess at a Python method named like a builtin type's is not walked where the caller holds
  no instance of the method's class: `req.environ.get(key)` in an `etag_property` getter was guessed
  at `wsgify.get`, and every test reading an etag ran webob's dec.py by the selection;
- a definition a workspace class decorates (`@wsgify def app(req)`) is an instance of it: calling the
  name, even through a parameter (`req.get_response(app)` calls `app(...)`), runs the class's
  `__call__`, its own or a base's, and reading it its `__get__`. The test calling it selects dec.py
  (before the first rule, a guess at `wsgify.get` had selected it by luck).
"""

from __future__ import annotations

from test_return_calls import calls_at

FILES = {
    "pkg/__init__.py": "",
    "pkg/web.py": ("class Base:\n    def __call__(self, req):\n        return self.func(req)\n\n\n"
                   "class wsgify(Base):\n    def __init__(self, func):\n        self.func = func\n\n"
                   "    def get(self, url):\n        return url\n"),
    "pkg/etag.py": "def fget(req):\n    return req.environ.get('HTTP_ETAG')\n",
    "pkg/req.py": "def get_response(app):\n    return app('x')\n",
    "pkg/store.py": ("from pkg.web import wsgify\n\n\ndef made(req):\n    w = wsgify(None)\n"
                     "    return req.get('/')\n"),
    "tests/test_etag.py": "from pkg.etag import fget\n\n\ndef test_fget():\n    assert fget(None) is None\n",
    "tests/test_store.py": "from pkg.store import made\n\n\ndef test_made():\n    assert made(None)\n",
    "tests/test_app.py": ("from pkg.req import get_response\nfrom pkg.web import wsgify\n\n\n@wsgify\ndef app(req):\n"
                          "    return req\n\n\ndef test_app():\n    assert get_response(app) == 'x'\n"),
}


def test_builtin_named_guesses_and_a_class_decorating_a_definition(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        tests = ws.impact("pkg/web.py", depth=3)["tests"]
        # `req.environ.get`: a dict's get, likelier than wsgify's; the guess stays an edge for impact
        assert "tests/test_etag.py" not in tests
        assert calls_at(ws, "pkg/etag.py", 2) == [("pkg/web.py::wsgify.get", "name_ambiguous")]  # a dict's get counts
        # a caller making a wsgify: its guess at wsgify.get is walked
        assert "tests/test_store.py" in tests
        # `@wsgify def app`: get_response calls it through a parameter, which runs Base.__call__
        assert "tests/test_app.py" in ws.impact("pkg/web.py::Base.__call__", depth=3)["tests"]
        assert "tests/test_app.py" in tests
    finally:
        ws.close()
