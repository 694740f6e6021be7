"""Issue 14 item 7: a hypothesis fuzzer over the source files given to the indexer. Random bytes,
token soup in each language's alphabet, and real files of the graph contracts with bytes spliced,
cut or duplicated go through the extraction of every language (and, a few files at a time, through
a whole index run: discover, parse, resolvers, graph passes). No exception, no hang (a file that
takes over HANG_SECONDS to extract fails the test). CI size; MEMORY_LSP_FUZZ_EXAMPLES raises it
(bench/bench_reliability_fuzz.py)."""

import os
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memory_lsp.index.extract import extract
from memory_lsp.index.languages import registry
from memory_lsp.workspace import Workspace

EXAMPLES = int(os.environ.get("MEMORY_LSP_FUZZ_EXAMPLES", "60"))
HANG_SECONDS = 60  # a hang detector, not a speed target: real files take milliseconds
CONTRACTS = Path(__file__).resolve().parent.parent / "contracts" / "languages"
LANGS = sorted(registry())
EXT = {lang: registry()[lang].extensions[0] for lang in LANGS}
TOKENS = ["def ", "class ", "fn ", "func ", "function ", "import ", "from ", "#include ", "package ", "use ",
          "struct ", "impl ", "module ", "end", "return ", "(", ")", "{", "}", "[", "]", "<", ">", ":", ";",
          ",", ".", "=", "=>", "->", "::", "\"", "'", "`", "/*", "*/", "//", "#", "\\", "\n", "\n    ",
          "\t", " ", "x", "Foo", "self.", "this.", "@", "0x1F", "1e9", "\u00e9", "\u202e", "\ufeff", "\0",
          "\U0001F600", "r#\"", "\"\"\"", "<T>", "extends ", "async ", "await ", "yield ", "lambda "]
SAMPLES = {lang: sorted(p for p in (CONTRACTS / lang / "workspace").rglob("*") if p.is_file())[:8]
           for lang in LANGS if (CONTRACTS / lang / "workspace").is_dir()}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang(f"extraction ran over {HANG_SECONDS} s")


@pytest.fixture(autouse=True)
def hang_guard():
    previous = signal.signal(signal.SIGALRM, _alarm)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def check(lang: str, data: bytes) -> None:
    signal.alarm(HANG_SECONDS)
    try:
        facts = extract(f"fuzz/sample{EXT[lang]}", data, lang)
    finally:
        signal.alarm(0)
    assert facts.size == len(data)
    for s in facts.symbols:
        assert 1 <= s.start_line <= s.end_line


soup = st.lists(st.sampled_from(TOKENS), max_size=400).map(lambda parts: "".join(parts).encode("utf-8", "surrogatepass"))


@st.composite
def mutated(draw):
    lang = draw(st.sampled_from(sorted(SAMPLES)))
    data = bytearray(draw(st.sampled_from(SAMPLES[lang])).read_bytes())
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "cut", "dup", "flip"]))
        if op == "insert":
            data[at:at] = draw(st.binary(max_size=40)) if draw(st.booleans()) else draw(soup)[:80]
        elif op == "cut":
            del data[at:at + draw(st.integers(1, 200))]
        elif op == "dup":
            data[at:at] = data[max(0, at - 300):at]
        elif at < len(data):
            data[at] ^= draw(st.integers(1, 255))
    return lang, bytes(data)


FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@FUZZ
@given(lang=st.sampled_from(LANGS), data=st.binary(max_size=4000))
def test_random_bytes(lang, data):
    check(lang, data)


@FUZZ
@given(lang=st.sampled_from(LANGS), data=soup)
def test_token_soup(lang, data):
    check(lang, data)


@FUZZ
@given(case=mutated())
# found by this fuzzer: invalid UTF-8 made tree-sitter's #match? predicates raise UnicodeDecodeError
@example(case=("java", b"\xf0ackage com.x;\n\nimport\xf0ackage com.x;\n\nimport com.x.util.Util;\nimport java.util.List;\n"
                       b"\npublic class Child extends Base implements Named {\n    private int n;\n"
                       b"    public void run() { this.n = Util.twice(n); }\n"
                       b"    public String name() { return \"child\"; }\n}\n"))
def test_mutated_real_files(case):
    check(*case)


@settings(max_examples=max(5, EXAMPLES // 10), deadline=None, suppress_health_check=list(HealthCheck),
          database=None)
@given(files=st.lists(st.tuples(st.sampled_from(LANGS), soup), min_size=1, max_size=6))
def test_whole_index_runs(tmp_path_factory, files):
    root = tmp_path_factory.mktemp("fuzz")
    for i, (lang, data) in enumerate(files):
        (root / f"f{i}{EXT[lang]}").write_bytes(data)
    signal.alarm(HANG_SECONDS * 2)
    try:
        ws = Workspace.open(root)
        try:
            report = ws.index(workers=0)
            assert report.files == len(files)
            ws.load_graph()
            ws.search("fuzz", k=3)
        finally:
            ws.close()
    finally:
        signal.alarm(0)
