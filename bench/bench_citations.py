"""Citations across real releases (issue 15 item 3): is each citation's state what a person said?

For each consecutive pair of releases in bench/citation_verdicts.json, a workspace holds release
A; one memory is taught per check, citing the definition; release B replaces A's files; the
workspace is indexed and the citations re-resolved, as after a `git pull`. A check is right when
the state matches the verdict and, when the verdict names where the code is now, the citation
points there. Wheels come from a cache folder (never committed):

    pip download --no-deps -d /tmp/wheels flask==2.2.5 flask==2.3.3 flask==3.0.3 flask==3.1.0 \
        click==8.0.4 click==8.1.7 werkzeug==2.3.8 werkzeug==3.0.6     # one at a time: pip resolves a list as one environment
    python bench/bench_citations.py --wheels /tmp/wheels [--verbose]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

from memory_lsp.memory.book import MemoryBook
from memory_lsp.workspace import Workspace

VERDICTS = Path(__file__).resolve().parent / "citation_verdicts.json"


def unpack(wheels: Path, project: str, version: str, into: Path) -> None:
    [wheel] = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(f"{project}-{version}-")]
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(f"{project}/") and name.endswith(".py"):
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                (into / name).write_bytes(z.read(name))


def run_pair(wheels: Path, pair: dict, verbose: bool) -> list[bool]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        unpack(wheels, pair["project"], pair["from"], root)
        book = MemoryBook(root)
        ids = [book.teach(f"note {i} about {c['cite']}", "gotcha", cite=[c["cite"]]).memory.id
               for i, c in enumerate(pair["checks"])]
        shutil.rmtree(root / pair["project"])
        unpack(wheels, pair["project"], pair["to"], root)
        ws = Workspace.open(root)
        try:
            ws.index(workers=0)
            ws.sync_memories(code_changed=True)
            found = {m.id: m for m in ws.memories(include_retired=True)}
        finally:
            ws.close()
    results = []
    for mid, check in zip(ids, pair["checks"]):
        c = found[mid].citations[0]
        now = f"{c.now.path}::{c.now.symbol}" if c.state != "orphaned" else None
        ok = c.state == check["expect"] and (check.get("now") is None or now == check["now"])
        if ok and check["expect"] != "orphaned" and "now" not in check:
            ok = now == check["cite"]  # not moved: it must still point at the same place
        results.append(ok)
        if verbose and not ok:
            print(f"  WRONG {pair['project']} {pair['from']}->{pair['to']} {check['cite']}: "
                  f"want {check['expect']} {check.get('now', '')}, got {c.state} {now or ''}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheels", required=True, type=Path)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    pairs = json.loads(VERDICTS.read_text())["pairs"]
    rows, total, right = [], 0, 0
    started = time.perf_counter()
    by_kind: dict[str, list[int]] = {}
    for pair in pairs:
        results = run_pair(args.wheels, pair, args.verbose)
        rows.append({"pair": f"{pair['project']} {pair['from']} -> {pair['to']}", "checks": len(results),
                     "right": sum(results), **({"held_out": True} if pair.get("held_out") else {})})
        total, right = total + len(results), right + sum(results)
        for check, ok in zip(pair["checks"], results):
            kind = check["expect"] + (" (moved)" if "now" in check else "")
            by_kind.setdefault(kind, [0, 0])
            by_kind[kind][0] += ok
            by_kind[kind][1] += 1
    print(json.dumps({"pairs": rows, "checks": total, "right": right, "share": round(right / total, 3),
                      "by_verdict": {k: f"{a}/{b}" for k, (a, b) in sorted(by_kind.items())},
                      "seconds": round(time.perf_counter() - started, 1)}, indent=2))


if __name__ == "__main__":
    main()
