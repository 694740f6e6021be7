"""Discovery's ignore rules (.gitignore lines, the default and the user's excludes): rules none of
which is negated are asked as one regex, each folder's verdict kept; that answer must be the one
the rule-by-rule reading gives, for every path and every kind of line."""

import random

from memory_lsp.index.discover import _Ignore
from memory_lsp.settings import DEFAULT_EXCLUDES

LINES = list(DEFAULT_EXCLUDES) + [
    "*.pyc", "build/", "/docs/_build", "**/generated/**", "src/**/tmp", "a?c.py", "[ab]*.txt", "cache/",
    "/top.py", "deep/nested/", "*.log", "x/**", "**/tests", "name", "spaces in/name.py", "weird[.py",
]
SEGMENTS = ["src", "docs", "_build", "build", "generated", "tmp", "a", "b", "abc.py", "aXc.py", "bz.txt",
            "cache", "top.py", "deep", "nested", "x.log", "x", "tests", "name", "node_modules", "dist",
            "pkg", "mod.py", "lib.min.js", "spaces in", "weird[.py", ".venv", "vendor"]


def test_rules_without_negation_answer_as_rule_by_rule():
    rng = random.Random(11)
    for trial in range(40):
        rules = _Ignore.from_lines(rng.sample(LINES, rng.randint(1, 8)))
        assert rules._folder_rule is not None  # the fast reading is the one under test
        for _ in range(400):
            path = "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 5)))
            is_dir = rng.random() < 0.4
            assert rules.verdict(path, is_dir) == rules._verdict_in_order(path, is_dir), (trial, path, is_dir)


def test_the_defaults_leave_out_folders_and_files_as_before():
    rules = _Ignore.from_lines(list(DEFAULT_EXCLUDES))
    assert rules.ignored("pkg/node_modules/x/index.js", False)
    assert rules.ignored("dist", True) and not rules.ignored("pkg/dist", True)  # "/dist/" is anchored
    assert rules.ignored("web/app.min.js", False) and not rules.ignored("web/app.js", False)
    assert rules.verdict("src/mod.py", False) is None  # no rule speaks


def test_a_negated_rule_still_reads_in_order():
    rules = _Ignore.from_lines(["*.py", "!keep.py", "out/"])
    assert rules._folder_rule is None
    assert rules.verdict("a/drop.py", False) is True
    assert rules.verdict("a/keep.py", False) is False  # re-included: the last match wins
    assert rules.verdict("out/keep.py", False) is True  # a folder ignored ignores what is below
