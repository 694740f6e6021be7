"""Secrets through every entry point, and false positives on the standard library (issue 14, item 1).

1. For every family (tests/reliability/secret_tokens.py: DESIGN.md section 8 plus the ones issue 14
   found stored), N synthetic tokens in real formats go through: the scanner; teach (refused);
   teach --redact (stored without it); edit (refused); capture (the sentence refused); import of a
   CLAUDE.md holding it (the rule refused, the others kept). Then the workspace is indexed and
   every text column of every DuckDB table and events.jsonl are searched for any 12-character
   piece of any token.
2. The same tokens written straight into a log (as a union merge from another clone would bring
   them): export refuses without --redact; json, markdown and agents exports with --redact and the
   `context` output hold none of them.
3. False positives: every sentence of every docstring of the standard library's modules (tests
   excluded: they hold made-up keys on purpose), scanned; findings counted by severity.

    python bench/bench_secrets.py [--per-family 30]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import sysconfig
import tempfile
import time
from contextlib import closing
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "reliability"))

from secret_tokens import FAMILIES, leaked, tokens  # noqa: E402

from memory_lsp import commands  # noqa: E402
from memory_lsp.errors import UserError  # noqa: E402
from memory_lsp.memory.book import MemoryBook  # noqa: E402
from memory_lsp.memory.secrets import blocking, redact, scan  # noqa: E402
from memory_lsp.workspace import Workspace  # noqa: E402


def entry_points(family: str, n: int) -> dict:
    misses = {k: 0 for k in ("scan", "teach", "redact", "edit", "capture", "import", "log", "duckdb")}
    misses["duckdb-file-chunks"] = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
        book = MemoryBook(root)
        plain = book.teach("the deploy credentials live in the vault", "fact").memory
        pairs = tokens(family, n, seed=7)
        for secret, text in pairs:
            found = blocking(scan(text))
            misses["scan"] += not found or leaked(secret, redact(text, found))
            try:
                book.teach(text, "fact")
                misses["teach"] += 1
            except UserError:
                pass
            misses["redact"] += leaked(secret, book.teach(text, "fact", redact=True).memory.text)
            try:
                book.edit(book.load().memories, plain.id, text=text)
                misses["edit"] += 1
            except UserError:
                pass
            captured = book.capture("You must always use this: " + text)
            misses["capture"] += any(not isinstance(w, str) and leaked(secret, c.text) for c, w in captured)
            (root / "CLAUDE.md").write_text(f"# Rules\n\n- Always run the tests first.\n- {text}\n", encoding="utf-8")
            report = book.import_rules()
            misses["import"] += not report.refused or any(leaked(secret, m.text) for m in report.created)
        log = (root / ".memory" / "events.jsonl").read_text(encoding="utf-8")
        misses["log"] = sum(leaked(s, log) for s, _ in pairs)
        with closing(Workspace.open(root)) as ws:
            ws.index(workers=0)
            ws.sync_memories()
            texts = _all_text(ws.store.cursor(), skip=("chunks",))
            chunks = _all_text(ws.store.cursor(), only=("chunks",))
        misses["duckdb"] = sum(leaked(s, texts) for s, _ in pairs)
        # not a memory: the search index's copy of the workspace's own CLAUDE.md, which holds the
        # last token (counted apart; the index stores what the workspace's files say)
        misses["duckdb-file-chunks"] = sum(leaked(s, chunks) for s, _ in pairs)
    return misses


def _all_text(cur, skip=(), only=None) -> str:
    """Every VARCHAR value of every table, joined: what a leak in the database would be found in."""
    cols = cur.execute("SELECT table_name, column_name FROM information_schema.columns "
                       "WHERE data_type = 'VARCHAR' AND table_schema = 'main'").fetchall()
    out = []
    for table, column in cols:
        if table in skip or (only is not None and table not in only):
            continue
        out += [v for (v,) in cur.execute(f'SELECT "{column}" FROM "{table}"').fetchall() if v]
    return "\n".join(out)


def merged_log(family: str, n: int) -> dict:
    misses = {"export-refused": 0, "export-redacted": 0, "context": 0}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
        book = MemoryBook(root)
        pairs = tokens(family, n, seed=8)
        for _secret, text in pairs:
            event = book.log.new_event("memory.created", "", type="policy", text=text, priority="high",
                                       confidence=1.0, tags=[], scope="global", source="user_taught", pinned=False,
                                       needs_review=False, citations=[], provenance=None)
            event["memory"] = event["id"]
            book.log.append(event)
        with closing(Workspace.open(root)) as ws:
            try:
                commands.run(ws, "memory.export", {"format": "json"})
                misses["export-refused"] = n
            except UserError:
                pass
            for fmt in ("json", "markdown", "agents"):
                out = commands.run(ws, "memory.export", {"format": fmt, "redact": True})["text"]
                misses["export-redacted"] += sum(leaked(s, out) for s, _ in pairs)
            ws.index(workers=0)
            ctx = commands.run(ws, "memory.context", {"budget": 200000})
            misses["context"] = sum(leaked(s, ctx["text"]) for s, _ in pairs) + (len(ctx["memories"]) != n) * n
    return misses


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def stdlib_sentences() -> list[str]:
    lib = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for path in sorted(lib.rglob("*.py")):
        rel = path.relative_to(lib).parts
        if any(p in ("test", "tests", "idlelib", "site-packages") or p.startswith("test_") for p in rel):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    for para in re.split(r"\n\s*\n", doc):
                        out += [s for s in _SENTENCE.split(" ".join(para.split())) if len(s) >= 20]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-family", type=int, default=30)
    args = ap.parse_args()
    started = time.perf_counter()
    rows = {}
    for family in FAMILIES:
        rows[family] = {**entry_points(family, args.per_family), **merged_log(family, args.per_family)}
        print(family, rows[family], flush=True)
    sentences = stdlib_sentences()
    block = warn = 0
    examples = []
    for s in sentences:
        found = scan(s)
        if blocking(found):
            block += 1
            examples.append(s)
        elif found:
            warn += 1
            if len(examples) < 10:
                examples.append(s)
    result = {"per_family": args.per_family, "families": len(FAMILIES), "tokens": args.per_family * len(FAMILIES),
              "misses": rows, "total_misses": sum(n for r in rows.values() for k, n in r.items() if k != "duckdb-file-chunks"),
              "stdlib_sentences": len(sentences), "block_false_positives": block, "warn_false_positives": warn,
              "false_positive_rate": round((block + warn) / max(1, len(sentences)), 5), "examples": examples[:10],
              "seconds": round(time.perf_counter() - started, 1), "python": sys.version.split()[0]}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
