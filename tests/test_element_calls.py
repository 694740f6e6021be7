"""A call on an element of a workspace generic: markdown's `for treeprocessor in self.treeprocessors:
treeprocessor.run(root)` where `self.treeprocessors = build_treeprocessors(self)` and treeprocessors.py
says `-> util.Registry[Treeprocessor]` (a class of one type argument, iterated and indexed as a
container of it). The call resolves in Treeprocessor, as jedi resolves it; an edit of the annotation
re-resolves it as a fresh index would."""

from test_return_calls import _one_edit, calls_at

from memory_lsp.index import receivers
from memory_lsp.index.extract import extract

FILES = {
    "md/__init__.py": "",
    "md/util.py": (
        "from typing import Generic, Iterator, TypeVar\n"
        "_T = TypeVar('_T')\n"
        "class Registry(Generic[_T]):\n"
        "    def __iter__(self) -> Iterator[_T]:\n"
        "        return iter(())\n"
        "    def __getitem__(self, key) -> _T:\n"
        "        raise KeyError(key)\n"
    ),
    "md/procs.py": (
        "from . import util\n"
        "class Processor:\n"
        "    def run(self, text):\n"
        "        return text\n"
        "class Other:\n"
        "    def run(self, text):\n"
        "        return text\n"
        "def build_processors() -> util.Registry[Processor]:\n"
        "    return util.Registry()\n"
    ),
    "md/core.py": (
        "from . import util\n"
        "from .procs import build_processors, Processor\n"
        "class Parser:\n"
        "    def __init__(self):\n"
        "        self.blocks: util.Registry[Processor] = util.Registry()\n"
        "    def parse(self, text):\n"
        "        for p in self.blocks:\n"
        "            p.run(text)\n"  # 8: an annotated attribute of this file
        "class Markdown:\n"
        "    def __init__(self):\n"
        "        self.processors = build_processors()\n"
        "    def convert(self, text):\n"
        "        for proc in self.processors:\n"
        "            text = proc.run(text)\n"  # 14: what another file's function returns
        "        self.processors['x'].run(text)\n"  # 15: indexed
        "        for q in build_processors():\n"
        "            q.run(text)\n"  # 17: iterated where called
        "        return text\n"
        "    def listed(self) -> 'list[Processor]':\n"
        "        return []\n"
    ),
    "md/ext.py": (
        "from .core import Markdown, Parser\n"
        "def extend(parser: Parser, text):\n"
        "    for block in parser.blocks:\n"
        "        block.run(text)\n"  # 4: an element of another class's annotated attribute
        "    parser.blocks[0].run(text)\n"  # 5: indexed
        "    for each in Markdown().listed():\n"
        "        each.run(text)\n"  # 7: of what another file's method returns
    ),
}


def test_one_type_argument_of_a_class_is_what_iterating_it_gives():
    assert receivers.element_type("util.Registry[Processor]") == "Processor"
    assert receivers.element_type("Optional[Registry['Processor']]") == "Processor"
    assert receivers.element_type("Registry[str]") == "builtin"
    # two arguments, or Python's forms that hold no elements: nothing
    for text in ("Table[str, Processor]", "Awaitable[Processor]", "type[Processor]", "Callable[[], Processor]",
                 "t.ContextManager[Processor]", "Literal['Processor']"):
        assert receivers.element_type(text) is None, text


def test_the_marks_and_rows_of_elements():
    facts = extract("md/core.py", FILES["md/core.py"].encode(), "python")
    rtypes = {r.line: r.rtype for r in facts.refs if r.kind == "call" and r.name == "run"}
    assert rtypes == {8: "Processor", 14: "->build_processors[]", 15: "->build_processors[]", 17: "->build_processors[]"}
    # a method's annotated result, an annotated attribute; not `processors`, which holds another file's function's result
    assert sorted((r.src, r.rtype) for r in facts.refs if r.kind == "elementtype") == [
        ("Markdown.listed", "Processor"), ("Parser.blocks", "Processor")]
    facts = extract("md/procs.py", FILES["md/procs.py"].encode(), "python")
    assert [(r.src, r.rtype) for r in facts.refs if r.kind == "elementtype"] == [("build_processors", "Processor")]
    facts = extract("md/ext.py", FILES["md/ext.py"].encode(), "python")
    assert {r.line: r.rtype for r in facts.refs if r.kind == "call" and r.name == "run"} == {
        4: "->Parser.blocks[]", 5: "->Parser.blocks[]", 7: "->Markdown.listed[]"}


def test_a_call_on_an_element_resolves_in_the_element_class(tmp_path, index_files):
    ws = index_files(tmp_path, FILES)
    try:
        assert calls_at(ws, "md/core.py", 8) == [("md/procs.py::Processor.run", "typed")]
        for path, line in (("md/core.py", 14), ("md/core.py", 15), ("md/core.py", 17), ("md/ext.py", 4), ("md/ext.py", 5),
                           ("md/ext.py", 7)):
            assert calls_at(ws, path, line) == [("md/procs.py::Processor.run", "returned")], (path, line)
    finally:
        ws.close()


def test_the_element_class_edited_re_resolves_the_calls(tmp_path, write_files):
    text = FILES["md/procs.py"].replace("util.Registry[Processor]", "util.Registry[Other]")
    before, after = _one_edit(tmp_path, write_files, FILES, "md/procs.py", text, ("md/core.py", 14))
    assert before == [("md/procs.py::Processor.run", "returned")]
    assert after == [("md/procs.py::Other.run", "returned")]


def test_an_attributes_element_class_edited_re_resolves_the_calls_of_other_files(tmp_path, write_files):
    # the annotation alone edited: no name of the file changes, the call's receiver (`block`) is no attribute's name
    files = FILES | {"md/core.py": FILES["md/core.py"].replace("import build_processors, Processor",
                                                               "import build_processors, Other, Processor")}
    text = files["md/core.py"].replace("util.Registry[Processor]", "util.Registry[Other]")
    before, after = _one_edit(tmp_path, write_files, files, "md/core.py", text, ("md/ext.py", 4))
    assert before == [("md/procs.py::Processor.run", "returned")]
    assert after == [("md/procs.py::Other.run", "returned")]
