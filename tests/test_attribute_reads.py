"""`impact` of a method that is read, not called (a property, a callback handed on): the graph has
no edge from its readers, so the answer lists the reads of its name found in the code's text
(store/attribute_reads.py), marked as found by name. The CLI runs as a user runs it."""

import functools
import json
import re
import subprocess
import sys

import pytest

from memory_lsp.index import languages
from memory_lsp.store import attribute_reads

_PY = languages.registry()["python"]
PYTHON = attribute_reads.Syntax(_PY.name, _PY.line_comment, _PY.self_names)

FILES = {
    "shop/__init__.py": "",
    "shop/order.py": (
        "class Order:\n"
        "    def __init__(self, items):\n"
        "        self.items = items\n"
        "\n"
        "    @property\n"
        "    def total(self):\n"
        "        return sum(self.items) + self.total_fee\n"  # its own body: no reader of itself
        "\n"
        "    def describe(self):\n"
        "        return f'{len(self.items)} items, {self.total}'\n"
        "\n"
        "    def later(self, hook):\n"
        "        hook(self.describe)\n"  # a method handed on as a callback
    ),
    "shop/stats.py": "total = 0\n",
    "shop/billing.py": (
        "from shop import stats as st\n"
        "\n"
        "def bill(order):\n"
        "    fee = order.total * 0.1\n"
        "    return fee, st.total\n"  # a module's value: not an attribute read of Order
        "\n"
        "def report(orders):\n"
        "    def line(o):\n"
        "        return str(o.total)\n"  # the nested function reads it, not report
        "    return [line(o) for o in orders]\n"
        "\n"
        "def totals_called(x):\n"
        "    return x.total(), 'shop.stats.total'\n"  # a call is an edge's business; a dotted name in a string no read
        "\n"
        "def total_renamed(x):\n"
        "    return x.total_price\n"  # another name
    ),
    "shop/invoice.py": (
        "from shop.order import Order\n"
        "\n"
        "class Invoice:\n"
        "    @property\n"
        "    def total(self):\n"
        "        return 0\n"
        "\n"
        "    def check(self):\n"
        "        return self.total\n"  # an Invoice's: no reader of Order.total
        "\n"
        "class RushOrder(Order):\n"
        "    def fee(self):\n"
        "        \"\"\"More than :attr:`Order.total`.\n"  # written about, not read
        "\n"
        "        >>> RushOrder([1]).total\n"
        "        \"\"\"\n"
        "        # was order.total\n"
        "        return self.total * 2\n"  # a subclass's self is an Order
        "\n"
        "def audit():\n"
        "    inv = Invoice()\n"
        "    inv.check()\n"
        "    return inv.total\n"  # its calls through `inv` are typed Invoice's: no reader of Order.total
    ),
    "shop/hooks.py": (
        "from shop.order import Order\n"
        "from shop import order as order_module\n"
        "\n"
        "def on_save(order):\n"
        "    return order\n"
        "\n"
        "signals.connect(on_save)\n"  # module-level code: the file's own use (a value held is an edge instead)
        "\n"
        "def register(bus):\n"
        "    bus.connect(on_save)\n"  # handed on
        "    return isinstance(bus, Order)\n"  # checked against
        "\n"
        "def describe(x):\n"
        "    \"\"\"Hands the bus\n"
        "    on_save when it fires.\"\"\"\n"  # prose
        "    # on_save is called elsewhere\n"
        "    on_save = None\n"  # a rebinding, no use
        "    return 'on_save' + str(order_module.Order)\n"  # a string, then the module's value
    ),
    "pkg/__init__.py": "from pkg.core import make\n",  # re-exported by the package
    "pkg/core.py": "def make():\n    return 1\n",
    "pkg/core.pyi": "def make() -> int: ...\n\nclass Maker:\n    def default(self, f=make) -> int: ...\n",  # its stub
    "app/use.py": "from pkg import make\n\ndef wire(registry):\n    registry.add(make)\n",
    "app/whole.py": (  # the package bound whole
        "import pkg\n"
        "\n"
        "def wire_all(registry):\n"
        "    registry.add(pkg.make)\n"  # through the package re-exporting it
        "    registry.add(pkg.core.make)\n"  # through its module
    ),
    "web/app.js": "function show(o) { return o.total; }\n",  # another language
    "web/order.ts": (
        "export class Cart {\n"
        "  get total(): number { return 1; }\n"
        "}\n"
        "export class Till {\n"
        "  total = 0;\n"
        "  check(): number { return this.total; }\n"  # a Till's own field
        "}\n"
        "export function bill(cart: Cart): number {\n"
        "  // cart.total in a comment\n"
        "  return cart.total * 2;\n"
        "}\n"
    ),
    "tests/test_order.py": (
        "from shop.order import Order\n"
        "\n"
        "def test_total():\n"
        "    assert Order([1, 2]).total == 3\n"
    ),
}


def cli(*args):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def root(tmp_path_factory, write_files):
    root = write_files(tmp_path_factory.mktemp("reads"), FILES)
    done = cli("index", str(root))
    assert done.returncode == 0, done.stderr
    return root


def impact(root, target):
    done = cli("impact", target, "--workspace", str(root), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_property_lists_its_readers(root):
    data = impact(root, "shop/order.py::Order.total")
    assert data["reads"] == [
        {"path": "shop/billing.py", "symbol": "bill", "lines": [4]},
        {"path": "shop/billing.py", "symbol": "report.line", "lines": [9]},
        {"path": "shop/invoice.py", "symbol": "RushOrder.fee", "lines": [18]},
        {"path": "shop/order.py", "symbol": "Order.describe", "lines": [10]},
        {"path": "tests/test_order.py", "symbol": "test_total", "lines": [4]},
    ]
    assert data["reads_total"] == 5
    assert data["reads_also_defined_in"] == ["shop/invoice.py::Invoice"]
    assert data["reads_kind"] == "attribute"


def test_a_receiver_typed_by_its_calls_reads_its_own_class(root):
    data = impact(root, "shop/invoice.py::Invoice.total")
    assert {(r["path"], r["symbol"]) for r in data["reads"]} >= {("shop/invoice.py", "audit"),
                                                                  ("shop/invoice.py", "Invoice.check")}
    assert ("shop/invoice.py", "RushOrder.fee") not in {(r["path"], r["symbol"]) for r in data["reads"]}


def test_a_typescript_accessor_read_outside_comments_and_other_classes(root):
    data = impact(root, "web/order.ts::Cart.total")
    assert data["reads"] == [{"path": "web/order.ts", "symbol": "bill", "lines": [10]}]


def test_a_method_handed_on_is_read(root):
    data = impact(root, "shop/order.py::Order.describe")
    assert data["reads"] == [{"path": "shop/order.py", "symbol": "Order.later", "lines": [13]}]
    assert data["reads_also_defined_in"] == []


def test_a_function_or_class_used_as_a_value_where_it_is_imported(root):
    data = impact(root, "shop/hooks.py::on_save")
    assert data["reads"] == [{"path": "shop/hooks.py", "symbol": None, "lines": [7]},
                             {"path": "shop/hooks.py", "symbol": "register", "lines": [10]}]
    # an import, a class's bases (an INHERITS edge), a call (`Order([1, 2])`) are no uses without a call
    data = impact(root, "shop/order.py::Order")
    assert data["reads"] == [{"path": "shop/hooks.py", "symbol": "register", "lines": [11]},
                             {"path": "shop/hooks.py", "symbol": "describe", "lines": [18]}]


def test_a_function_used_through_the_package_re_exporting_it(root):
    data = impact(root, "pkg/core.py::make")
    assert data["reads"] == [{"path": "app/use.py", "symbol": "wire", "lines": [4]},
                             {"path": "app/whole.py", "symbol": "wire_all", "lines": [4, 5]},
                             {"path": "pkg/core.pyi", "symbol": "Maker.default", "lines": [4]}]
    assert data["reads_kind"] == "value"
    done = cli("impact", "pkg/core.py::make", "--workspace", str(root))
    assert "used without a call (handed on, checked against, annotated) by 3 functions where it is imported" \
        in done.stdout
    assert "  app/use.py::wire  (line 4)" in done.stdout


def test_no_reads_asked_for_a_file_a_nested_function_or_a_dunder(root):
    for target in ("shop/order.py", "shop/billing.py::report.line", "shop/order.py::Order.__init__"):
        data = impact(root, target)
        assert (data["reads"], data["reads_total"]) == ([], 0), target


def test_the_text_answer_says_they_are_found_by_name(root):
    done = cli("impact", "shop/order.py::Order.total", "--workspace", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].endswith("tests, used without a call by 5 more (below)")
    assert "read as `.total` by 5 functions (found by name" in done.stdout
    assert "other classes too, whose readers may be among these: shop/invoice.py::Invoice)" in done.stdout
    assert "  shop/billing.py::bill  (line 4)" in done.stdout


def test_readers_cut_at_the_shown_number(root, monkeypatch):
    from memory_lsp.workspace import Workspace

    monkeypatch.setattr(attribute_reads, "READS_SHOWN", 2)
    ws = Workspace.open(root)
    try:
        shown, total, _ = attribute_reads.readers(ws.store.cursor(), "total", "shop/order.py", "Order.total", PYTHON)
    finally:
        ws.close()
    assert [(p, q) for p, q, _ in shown] == [("shop/billing.py", "bill"), ("shop/billing.py", "report.line")]
    assert total == 5


def test_the_chunks_are_searched_a_slice_at_a_time(root, monkeypatch):
    """DuckDB keeps the text a statement read cached: the search goes slice by slice, handing it back
    after each, and finds what one statement over the whole table finds."""
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(root)
    try:
        whole = attribute_reads.readers(ws.store.cursor(), "total", "shop/order.py", "Order.total", PYTHON)
        monkeypatch.setattr(attribute_reads, "SLICE_ROWS", 3)
        released = []
        sliced = attribute_reads.readers(ws.store.cursor(), "total", "shop/order.py", "Order.total", PYTHON,
                                         release=lambda: released.append(1))
        chunks = ws.store.cursor().execute("SELECT count(*) FROM chunks").fetchone()[0]
    finally:
        ws.close()
    assert sliced == whole and whole.total == 5
    assert len(released) == -(-chunks // 3) + 1 > 2  # after each slice, and after the statements that follow


def test_module_level_code_is_read_only_as_indexed(tmp_path, index_files):
    """A file's module-level code is read from the disk: only while it is the text the index has (after
    an edit not indexed yet its lines would not be the index's), else its module-level uses are left out."""
    # handed to a call at module level (a value an assignment holds is a CALLS edge of the module instead)
    ws = index_files(tmp_path, {"a.py": "def hook():\n    return 1\n\nregister(hook)\n",
                                "b.py": "from a import hook\n\nregister(h=hook)\n",
                                "c.py": "from a import (\n    hook,\n)\n",  # an import on lines of its own
                                "d.py": "from a import *\n\nLATER = [hook]\n"})  # a star import binds it too
    try:
        assert ws.impact("a.py::hook")["reads"] == [{"path": "a.py", "symbol": None, "lines": [4]},
                                                    {"path": "b.py", "symbol": None, "lines": [3]},
                                                    {"path": "d.py", "symbol": None, "lines": [3]}]
        (tmp_path / "b.py").write_text("from a import hook\n\n\nregister(h=hook)\n", encoding="utf-8")
        assert ws.impact("a.py::hook")["reads"] == [{"path": "a.py", "symbol": None, "lines": [4]},
                                                    {"path": "d.py", "symbol": None, "lines": [3]}]
    finally:
        ws.close()


def test_a_file_changed_since_indexing_is_searched_in_the_indexed_chunks(tmp_path, index_files):
    """Each importing file is read whole from the disk while it is the text indexed; one edited since is
    searched in the index's chunks instead (its uses inside functions at the index's lines)."""
    ws = index_files(tmp_path, {"a.py": "def hook():\n    return 1\n",
                                "b.py": "from a import hook\n\ndef wire(bus):\n    bus.connect(hook)\n\nregister(hook)\n"})
    try:
        both = [{"path": "b.py", "symbol": "wire", "lines": [4]}, {"path": "b.py", "symbol": None, "lines": [6]}]
        assert ws.impact("a.py::hook")["reads"] == both
        (tmp_path / "b.py").write_text("from a import hook\n\n\ndef wire(bus):\n    bus.connect(hook)\n",
                                       encoding="utf-8")
        assert ws.impact("a.py::hook")["reads"] == [{"path": "b.py", "symbol": "wire", "lines": [4]}]
        (tmp_path / "b.py").write_text("def wire(bus):\n    return bus\n", encoding="utf-8")  # no use left on disk
        assert ws.impact("a.py::hook")["reads"] == []
    finally:
        ws.close()


def test_a_triple_quote_inside_a_string_starts_no_prose(tmp_path, index_files):
    """A file read whole: a `\"\"\"` written inside a one-line string (tomllib's parser checks for one) opens
    no docstring, so the uses after it are still found; a docstring's are not. (Triple quotes paired over the
    whole file would pair it with the next docstring's and hide `parse`'s annotation.)"""
    ws = index_files(tmp_path, {"a.py": "class Any:\n    pass\n",
                                "b.py": ("from a import Any\n\n"
                                         "def opens(src):\n    return src.startswith('\"\"\"')\n\n"
                                         "def parse(src) -> Any:\n    \"\"\"Gives an Any.\"\"\"\n    return src\n")})
    try:
        assert ws.impact("a.py::Any")["reads"] == [{"path": "b.py", "symbol": "parse", "lines": [6]}]
    finally:
        ws.close()


def test_a_pattern_is_tried_only_where_a_written_form_starts():
    """`matches` with the forms a use is written in finds what the pattern finds over the whole text."""
    pattern = re.compile(r"(?<![\w.@])(?:hook|m\.hook|pkg\.m\.hook)(?![\w(])")
    text = "x = hook\ny = m.hook, pkg.m.hook, a.hook, hooks, @hook, hook(1)\nz = [m.hook]\n"
    written = ("hook", "m.hook", "pkg.m.hook")
    assert list(attribute_reads.matches(text, pattern, written)) == list(attribute_reads.matches(text, pattern))
    assert [line for line, _, _ in attribute_reads.matches(text, pattern, written)] == [0, 1, 1, 2]


def test_python_files_are_those_the_index_found_reading_the_name(tmp_path, index_files):
    """A Python method's readers are searched in the files the index found reading its name (`attr` rows), read
    whole from the disk: what the whole-table search of the chunks finds, less the reads the index's rules refuse
    (a name after a string's `}` or in one, as in `"{}.total".format(x)`). A file edited since indexing is
    searched in the index's chunks, at the index's lines."""
    from memory_lsp.workspace import queries

    order = "class Order:\n    @property\n    def total(self):\n        return 1\n"
    use = "def bill(order):\n    return order.total\n\n\ndef later(order):\n    return [order.total]\n"
    ws = index_files(tmp_path, {"a.py": order, "b.py": use,
                                "c.py": 'def show(x):\n    return "{}.total".format(x)\n'})
    try:
        snap = ws.snapshot()
        by_table = attribute_reads.readers(ws.store.cursor(), "total", "a.py", "Order.total", PYTHON)
        assert [(p, q) for p, q, _ in by_table.shown] == [("b.py", "bill"), ("b.py", "later"), ("c.py", "show")]
        from_disk = attribute_reads.readers(ws.store.cursor(), "total", "a.py", "Order.total", PYTHON,
                                            module_text=functools.partial(queries._indexed_text, snap))
        assert from_disk.shown == [("b.py", "bill", [2]), ("b.py", "later", [6])] == by_table.shown[:2]
        (tmp_path / "b.py").write_text("\n\n" + use, encoding="utf-8")  # not indexed yet
        assert ws.impact("a.py::Order.total")["reads"] == [{"path": "b.py", "symbol": "bill", "lines": [2]},
                                                           {"path": "b.py", "symbol": "later", "lines": [6]}]
        ws.index()  # the edit indexed: its lines, from the disk
        assert [r["lines"] for r in ws.impact("a.py::Order.total")["reads"]] == [[4], [8]]
    finally:
        ws.close()


def test_a_class_family_from_the_graph_is_the_edges_table_s(root):
    """`impact` hands the reads search the method's class family from the loaded graph (graph/overridden.py
    `family`): the same classes as the edges table's INHERITS rows give, for every class."""
    from memory_lsp.graph import overridden
    from memory_lsp.workspace import Workspace

    ws = Workspace.open(root)
    try:
        graph, cur = ws.load_graph(), ws.store.cursor()
        classes = [r[0] for r in cur.execute("SELECT id FROM symbols WHERE kind = 'class' ORDER BY id").fetchall()]
        assert {"shop/order.py::Order", "shop/invoice.py::RushOrder"} <= set(classes)
        for cls in classes + ["shop/order.py::Missing"]:
            assert overridden.family(graph, cls) == attribute_reads._family(cur, cls), cls
        assert overridden.family(graph, "shop/order.py::Order") == {"shop/order.py::Order", "shop/invoice.py::RushOrder"}
    finally:
        ws.close()
