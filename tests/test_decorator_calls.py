"""A decorator without arguments is called with what it decorates (`@attr.define`, `@gen.define`):
a CALLS edge from where the decoration runs, so `impact` of the decorator lists the code it wraps.
A builtin decorator (`@property`) links nothing."""

FILES = {
    "gen.py": "def define(cls):\n    return cls\n",
    "use.py": ("import gen\n"
               "from gen import define\n"
               "@gen.define\n"
               "class A:\n"
               "    pass\n"
               "def make():\n"
               "    @define\n"
               "    class B:\n"
               "        @property\n"
               "        def x(self):\n"
               "            return 1\n"
               "    return B\n"),
}


def test_a_decorator_is_a_call_of_it(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        rows = set(ws.store.cursor().execute(
            "SELECT src, line, dst, strategy FROM edges WHERE kind = 'CALLS'").fetchall())
        assert rows == {("use.py", 3, "gen.py::define", "module_attr"),
                        ("use.py::make", 7, "gen.py::define", "import")}
        assert {d["symbol"] for d in ws.impact("gen.py::define", depth=1)["dependents"]} >= {"make"}
    finally:
        ws.close()
