"""Issue 12 items 1 and 2: a parameter annotated with one type and bound again in the function is the
new value below the rebinding. arrow's `humanize(self, other=None, locale: str = DEFAULT_LOCALE, ...)`
does `locale = locales.get_locale(locale)`, then `locale.describe_multi(...)`: the annotation typed the
receiver `str` at every call, so Python's own class was assumed and `Locale.describe_multi` had no
caller (36 dependents at depth 3 by jedi, none found)."""

from test_call_returns import _edited_equals_fresh

from memory_lsp.index import extract

ARROW = (
    "import os, typing as t; from pkg import locales\n"                      # 1
    "class Arrow:\n"                                                          # 2
    "    def humanize(self, other=None, locale: str = 'en_us'):\n"            # 3
    "        name = locale.lower()\n"                                         # 4
    "        locale = locales.get_locale(locale)\n"                           # 5
    "        if other is None:\n"                                             # 6
    "            return locale.describe('now')\n"                             # 7
    "        return locale.describe_multi([other])\n"                         # 8
    "    def plain(self, locale: locales.Locale, text: str):\n"               # 9
    "        text = text.strip()\n"                                           # 10
    "        text = helper(text)\n"                                           # 11
    "        return locale.describe(text.upper())\n"                          # 12
    "    def keyed(self, key: locales.Locale):\n"                             # 13
    "        if not key:\n"                                                   # 14
    "            key = locales.Special()\n"                                   # 15
    "        return key.describe('x')\n"                                      # 16
    "    def stripped(self, text: str):\n"                                    # 17
    "        text = text.strip()\n"                                           # 18
    "        return text.upper()\n"                                           # 19
    "    def opened(self, fd, f: t.BinaryIO, env: dict, frame: t.Any):\n"     # 20
    "        f = os.fdopen(fd)\n"                                             # 21
    "        env = frame.f_globals.copy()\n"                                  # 22
    "        env.update(f.write(b''))\n"                                      # 23
)
LOCALES = (
    "class Locale:\n"
    "    def describe(self, text):\n        return text\n"
    "    def describe_multi(self, texts):\n        return ', '.join(texts)\n"
    "class Special(Locale):\n    pass\n"
    "def get_locale(name: str) -> 'Locale':\n    return Locale()\n"
)
FILES = {
    "pkg/__init__.py": "",
    "pkg/locales.py": LOCALES,
    "pkg/arrow.py": ARROW,
    "tests/test_arrow.py": (
        "from pkg.arrow import Arrow\n"
        "def test_humanize():\n    assert Arrow().humanize(1)\n"
    ),
}


def _rtypes(facts):
    return {(r.line, r.name): r.rtype for r in facts.refs if r.kind == "call"}


def test_below_the_rebinding_the_name_is_its_new_value():
    rtypes = _rtypes(extract.extract("pkg/arrow.py", ARROW.encode(), "python"))
    assert rtypes[(4, "lower")] == "builtin"  # above it: the annotation's str
    assert rtypes[(7, "describe")] == rtypes[(8, "describe_multi")] == "->locales.get_locale"
    assert rtypes[(12, "describe")] == "locales.Locale"  # never bound again: its annotation
    assert rtypes[(12, "upper")] == "->helper"  # what `helper(text)` returns (the graph types it), not a str
    assert rtypes[(16, "describe")] == "locales.Locale"  # a class annotated: a rebinding in a branch is one of its kinds
    assert rtypes[(19, "upper")] == "builtin"  # `text = text.strip()`: the annotation's str, changed in form
    # what a standard-library function or a local's method returns is no class of ours: no guess follows
    assert rtypes[(23, "write")] == "t.BinaryIO" and rtypes[(23, "update")] == "builtin"


def test_the_method_has_its_caller_and_test(index_files, tmp_path):
    ws = index_files(tmp_path / "ws", FILES)
    rows = set(ws.store.cursor().execute(
        "SELECT src, dst FROM edges WHERE kind = 'CALLS' AND src_path = 'pkg/arrow.py'").fetchall())
    assert ("pkg/arrow.py::Arrow.humanize", "pkg/locales.py::Locale.describe_multi") in rows
    answer = ws.impact("pkg/locales.py::Locale.describe_multi", depth=3)
    assert {d["symbol"] for d in answer["dependents"] if d["symbol"]} == {"Arrow.humanize", "test_humanize"}
    assert answer["tests"] == ["tests/test_arrow.py"]
    ws.close()


def test_an_edit_dropping_the_rebinding_equals_a_fresh_index(tmp_path, write_files):
    root = write_files(tmp_path / "ws", FILES)
    incremental = _edited_equals_fresh(tmp_path, root, "pkg/arrow.py",
                                       ARROW.replace("locale = locales.get_locale(locale)", "pass"))
    assert not any(dst == "pkg/locales.py::Locale.describe_multi" for _src, dst, *_ in incremental["edges"])
