"""Benchmark i: one owner, two editor windows.

Two `memory-lsp serve` processes (each a proxy to the owner) on one workspace: a copy of the
standard library (about 1,500 files) with 50 memories taught through the CLI. Measured, each
`--rounds` times with a fresh owner:

1. hover latency inside the server that answers (`memory/timings`, p50/p99) in the first and in
   the second window, `--hovers` hovers each, on symbols that have memories;
2. RSS (VmRSS) of one window (its proxy + the owner) against two windows (two proxies + the
   owner), after the hovers; and as a baseline in the same run, one `serve --standalone`;
3. fail-over: kill -9 of the owner, then the time until the second window's next hover shows its
   memory again (a new owner started, the session replayed, the folder opened).

    python bench/bench_owner.py [--hovers 300] [--rounds 3] [--workspace /tmp/ownerbench]

Writes bench/results/owner.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests" / "server"))
import corpora  # noqa: E402
from rawclient import RawClient  # noqa: E402

SERVE = [sys.executable, "-m", "memory_lsp", "serve"]
OWNER = "from memory_lsp.server.owner import main; main()"


def build(dest: Path, memories: int) -> list[tuple[str, int]]:
    """The workspace with `memories` taught memories; the (file, line) of each cited symbol."""
    if not (dest / ".memory" / "events.jsonl").exists():
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(corpora.stdlib_copy(), dest)
        targets = _targets(dest, memories)
        for rel, line, name in targets:
            subprocess.run([sys.executable, "-m", "memory_lsp", "teach",
                            f"{name} in {rel}: callers rely on its exact error messages", "--type", "gotcha",
                            "--cite", f"{rel}::{name}", "--workspace", str(dest)], check=True, capture_output=True)
        (dest / "targets.json").write_text(json.dumps(targets))
    return [(rel, line) for rel, line, _ in json.loads((dest / "targets.json").read_text())]


def _targets(root: Path, count: int) -> list[tuple[str, int, str]]:
    import ast

    found = []
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                found.append((path.relative_to(root).as_posix(), node.lineno, node.name))
                break
        if len(found) >= count:
            break
    return found


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def owner_pid(runtime: Path) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for info in runtime.glob("owner-*.json"):
            try:
                return json.loads(info.read_text())["pid"]
            except (OSError, ValueError, KeyError):
                pass
        time.sleep(0.05)
    raise RuntimeError("no owner")


def hover(client: RawClient, root: Path, rel: str, line: int) -> str:
    answer = client.call("textDocument/hover", {"textDocument": {"uri": (root / rel).as_uri()},
                                                "position": {"line": line - 1, "character": 5}})
    result = answer.get("result")  # an error (ContentModified) while a new owner takes over
    return ((result or {}).get("contents") or {}).get("value", "")


def open_all(client: RawClient, root: Path, targets) -> None:
    for rel, _ in {rel: 0 for rel, _ in targets}.items():
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": (root / rel).as_uri(), "languageId": "python", "version": 1,
            "text": (root / rel).read_text(encoding="utf-8")}})


def timings(client: RawClient) -> dict:
    return client.call("memory/timings", {"reset": True})["result"]


def hovers(client: RawClient, root: Path, targets, count: int) -> dict:
    timings(client)
    shown = sum("callers rely" in hover(client, root, *targets[i % len(targets)]) for i in range(count))
    inside = sorted(timings(client).get("hover") or [0.0])  # ms per hover, measured in the server
    return {"shown": shown, "count": count, "p50_ms": round(inside[len(inside) // 2], 3),
            "p99_ms": round(inside[min(len(inside) - 1, int(len(inside) * 0.99))], 3)}


def one_round(root: Path, targets, count: int) -> dict:
    runtime = Path(tempfile.mkdtemp(prefix="mlsp-b-"))
    env_vars = {"MEMORY_LSP_RUNTIME_DIR": str(runtime), "MEMORY_LSP_OWNER_IDLE": "5"}
    os.environ.update(env_vars)
    out: dict = {}
    first = RawClient(SERVE)
    first.initialize(root)
    first.wait_indexed(timeout=600)
    owner = owner_pid(runtime)
    open_all(first, root, targets)
    out["window1"] = hovers(first, root, targets, count)
    out["rss_one_window_mb"] = rss_mb(first.proc.pid) + rss_mb(owner)
    second = RawClient(SERVE)
    started = time.perf_counter()
    second.initialize(root)
    second.wait_indexed(timeout=600)
    out["second_window_ready_s"] = time.perf_counter() - started
    open_all(second, root, targets)
    out["window2"] = hovers(second, root, targets, count)
    out["rss_two_windows_mb"] = rss_mb(first.proc.pid) + rss_mb(second.proc.pid) + rss_mb(owner)
    out["rss_proxy_mb"] = rss_mb(second.proc.pid)
    out["rss_owner_mb"] = rss_mb(owner)
    os.kill(owner, signal.SIGKILL)
    killed = time.perf_counter()
    rel, line = targets[0]
    while True:
        try:
            if "callers rely" in hover(second, root, rel, line):
                break
        except AssertionError:
            pass
        if time.perf_counter() - killed > 120:
            raise RuntimeError("no fail-over within 120 s")
        time.sleep(0.05)
    out["failover_s"] = time.perf_counter() - killed
    for client in (first, second):
        client.close()
    standalone = RawClient(SERVE + ["--standalone"])
    standalone.initialize(root)
    standalone.wait_indexed(timeout=600)
    open_all(standalone, root, targets)
    out["standalone"] = hovers(standalone, root, targets, count)
    out["rss_standalone_mb"] = rss_mb(standalone.proc.pid)
    standalone.close()
    for info in runtime.glob("owner-*.json"):
        try:
            os.kill(json.loads(info.read_text())["pid"], signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            pass
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workspace", default="/tmp/ownerbench")
    ap.add_argument("--hovers", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--memories", type=int, default=50)
    args = ap.parse_args()
    root = Path(args.workspace)
    targets = build(root, args.memories)
    rounds = []
    (HERE / "results").mkdir(exist_ok=True)
    for _ in range(args.rounds):
        rounds.append(one_round(root, targets, args.hovers))
        (HERE / "results" / "owner-rounds.json").write_text(json.dumps(rounds, indent=2))

    def med(get):
        return round(statistics.median(get(r) for r in rounds), 2)
    summary = {
        "hover_p50_ms_window1": med(lambda r: r["window1"]["p50_ms"]),
        "hover_p99_ms_window1": med(lambda r: r["window1"]["p99_ms"]),
        "hover_p50_ms_window2": med(lambda r: r["window2"]["p50_ms"]),
        "hover_p99_ms_window2": med(lambda r: r["window2"]["p99_ms"]),
        "hover_p50_ms_standalone": med(lambda r: r["standalone"]["p50_ms"]),
        "hover_p99_ms_standalone": med(lambda r: r["standalone"]["p99_ms"]),
        "rss_one_window_mb": med(lambda r: r["rss_one_window_mb"]),
        "rss_two_windows_mb": med(lambda r: r["rss_two_windows_mb"]),
        "rss_standalone_mb": med(lambda r: r["rss_standalone_mb"]),
        "rss_proxy_mb": med(lambda r: r["rss_proxy_mb"]),
        "two_over_one": med(lambda r: r["rss_two_windows_mb"] / r["rss_one_window_mb"]),
        "second_window_ready_s": med(lambda r: r["second_window_ready_s"]),
        "failover_s": med(lambda r: r["failover_s"]),
        "shown_all": all(r[w]["shown"] == r[w]["count"] for r in rounds for w in ("window1", "window2", "standalone")),
    }
    result = {"machine": f"{platform.node()} {os.cpu_count()} cores {platform.python_version()}",
              "workspace": str(root), "files": sum(1 for _ in root.rglob("*.py")), "rounds": rounds,
              "summary": summary, "command": " ".join(sys.argv)}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "owner.json").write_text(json.dumps(result, indent=2))
    print("| measure | median of %d rounds |\n|---|---|" % len(rounds))
    for k, v in summary.items():
        print(f"| {k} | {v} |")


if __name__ == "__main__":
    main()
