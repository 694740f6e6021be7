"""Issue 15 item 2: a file's own memories come first (memories --file, context --file, hovers'
MemoryView.for_file), however many imported rules cover the file; run as a user runs the CLI."""

import json
import subprocess
import sys

import pytest

from shop_project import SHOP

FILES = {path: text for path, text in SHOP.items() if path != "shop/mailer.py"}
OWN = [("Discounts apply to the total after tax, as the accountants asked in 2023", "decision",
        "shop/pricing.py::apply_discount"),
       ("round_cents rounds half to even (Python's round), which finance accepted", "fact",
        "shop/pricing.py::round_cents"),
       ("Prices are floats for now; Decimal was tried and abandoned for speed", "dead_end", "shop/pricing.py")]
NEIGHBOUR = ("The cart total is computed on every page view, so keep checkout_total cheap", "fact",
             "shop/cart.py::Cart.checkout_total")
# rule files in the style of real ones: 30 global "Always/Never" rules and 30 scoped to every .py file
GLOBAL_RULES = "# Rules\n\n" + "".join(f"- Always follow team convention number {i} when writing code.\n"
                                       for i in range(30))
SCOPED_RULES = ("---\ndescription: Python\nglobs: **/*.py\nalwaysApply: false\n---\n"
                + "".join(f"- Never break python style rule number {i} in any module.\n" for i in range(30)))


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def shop(tmp_path_factory, write_files):
    root = write_files(tmp_path_factory.mktemp("shop"), {
        **FILES, "CLAUDE.md": GLOBAL_RULES, ".cursor/rules/python.mdc": SCOPED_RULES})
    cli("index", str(root))
    ids = {}
    for text, type_, cite in OWN + [NEIGHBOUR]:
        ids[text] = json.loads(cli("teach", "-w", str(root), text, "--type", type_, "--cite", cite, "--json"))["id"]
    imported = json.loads(cli("import", "-w", str(root), "--json"))
    assert len(imported["created"]) >= 55  # the rules really are there
    return root, ids


def test_memories_file_lists_the_files_own_memories_before_any_rule(shop):
    root, ids = shop
    listed = [m["id"] for m in json.loads(cli("memories", "-w", str(root), "--file", "shop/pricing.py",
                                              "--json"))["memories"]]
    own = {ids[text] for text, *_ in OWN}
    assert set(listed[:3]) == own and len(listed) > 30  # the scoped rules follow


def test_context_file_keeps_every_own_memory_and_says_what_it_left_out(shop):
    root, ids = shop
    out = json.loads(cli("context", "-w", str(root), "--file", "shop/pricing.py", "--budget", "400", "--json"))
    own = [ids[text] for text, *_ in OWN]
    assert set(own) <= set(out["memories"]) and out["memories"][:3] == sorted(own, key=out["memories"].index)
    assert set(out["memories"][:3]) == set(own)  # printed first
    assert ids[NEIGHBOUR[0]] in out["memories"]  # cart.py imports pricing.py: its memory follows
    rule_lines = [line for line in out["text"].splitlines() if "— cites no citation —" in line]
    assert rule_lines and sum(len(line) // 4 for line in rule_lines) <= 400 // 3  # rules keep to a third
    assert out["left_out"] > 0 and f"{out['left_out']} more" in out["text"]
    assert "memory-lsp memories --file shop/pricing.py" in out["text"]
    assert out["tokens"] <= 400


def test_context_without_a_file_still_leads_with_standing_rules(shop):
    root, _ids = shop
    out = json.loads(cli("context", "-w", str(root), "--budget", "300", "--json"))
    first = next(line for line in out["text"].splitlines() if line.startswith("["))
    assert "no citation" in first  # a standing rule (how an import types it is not this test's concern)
