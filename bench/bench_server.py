"""Benchmark g: the language server as an editor meets it, on a workspace of 10,000+ files.

The server runs as its own process (`python -m memory_lsp serve`, stdio) driven by a real LSP
client (pytest-lsp's, VS Code's capabilities). The workspace is built under /tmp: N copies of the
standard library (no test folders, no site-packages) plus a few installed registry packages;
memories are taught first through the CLI (event log), each citing a real symbol of one of the
files the hovers visit. Measured:

1. process start -> `initialize` reply, on a fresh index (cold) and with the index present (warm),
   `--init-repeat` times each (the server is told `shutdown` right after: nothing is indexed);
2. process start -> first hover on a symbol with a memory that shows that memory, cold (polled
   every 0.5 s, the file opened first as an editor does);
3. process start -> the end of the first indexing run (work-done progress end), cold and warm;
4. hover, codeLens, codeLens/resolve and pull diagnostics: durations measured inside the server
   (`memory/timings`) and the round trip the client sees, p50/p99, after the warm index is done
   and the server is idle;
5. peak RSS (VmHWM) of the server process, of the cold run (indexing) and the warm run (after 4);
   and of the largest process under it in the cold run (the first index runs in a child process of
   its own from 300 files: workspace/apart.py).
6. RSS (VmRSS) of the server at the end of the warm run (after the `memory.impact` commands), and
   after it sat idle IDLE_S seconds more (the writer settles once idle: DuckDB's cache handed back).

    python bench/bench_server.py [--copies 12] [--hovers 2000] [--files 200] [--workspace /tmp/srvbench]
                                 [--workers N] [--server CMD ...]

`--workers 1` (initializationOptions indexing.workers) keeps the first index in the server's
process: with worker processes the server's first index hangs over stdio (forked workers wait
for the stdin lock held by pygls' reader thread; see BENCHMARKS.md section g). A hang is
detected (no progress and no CPU for `--stall` seconds), the server killed and the partial
results written. Writes bench/results/server.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

from lsprotocol import types as t  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import LanguageClient, client_capabilities  # noqa: E402
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features  # noqa: E402

SERVER = [sys.executable, "-m", "memory_lsp", "serve", "--standalone"]  # its RSS is the whole server (bench_owner.py measures the owner)
RESULTS = Path(__file__).parent / "results" / "server.json"
PLAN = ".bench-server-plan.json"
IMPACT_COMMANDS = 20  # memory.impact commands at the end of the warm run (they load the impact graph)
IDLE_S = 20  # then the server sits idle this long (it settles 15 s after its last graph load: folders.py)
HANDLERS = ("hover", "code_lens", "code_lens_resolve", "pull_diagnostics")


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


def summary(values: list[float]) -> dict:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50_ms": round(statistics.median(values), 2), "p99_ms": round(percentile(values, 99), 2),
            "max_ms": round(max(values), 2), "mean_ms": round(statistics.fmean(values), 2)}


# -- the workspace and its memories --------------------------------------------------------------------
def symbols_of(path: Path) -> list[tuple[str, int, int, int]]:
    """(qualname, first line, last line, column) of top-level functions and classes and their methods."""
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError):
        return []
    defs = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    out = []
    for node in tree.body:
        if isinstance(node, defs):
            out.append((node.name, node.lineno, node.end_lineno, node.col_offset))
            if isinstance(node, ast.ClassDef):
                out += [(f"{node.name}.{m.name}", m.lineno, m.end_lineno, m.col_offset)
                        for m in node.body if isinstance(m, defs)]
    return out


def make_plan(root: Path, n_files: int, seed: int) -> dict:
    """The files the hovers visit (each with at least one symbol) and, per file, the symbol a memory cites."""
    from memory_lsp.index.discover import discover
    from memory_lsp.settings import Settings

    candidates, _ = discover(root, Settings())
    py = sorted(c.path for c in candidates if c.lang == "python")
    rng = random.Random(seed)
    rng.shuffle(py)
    files = []
    for rel in py:
        syms = symbols_of(root / rel)
        if not syms:
            continue
        qual, start, end, col = rng.choice(syms)
        files.append({"path": rel, "symbol": qual, "line": start, "end": end, "col": col})
        if len(files) == n_files:
            break
    return {"indexed_files": len(candidates), "files": files, "seed": seed}


def teach_all(root: Path, plan: dict) -> tuple[int, float]:
    """One memory per planned file through the CLI (two at a time: the event log takes a lock)."""
    def teach(i_f):
        i, f = i_f
        text = (f"bench gotcha {i}: {f['symbol']} in {f['path']} is called from many places; "
                f"keep its signature stable")
        done = subprocess.run([sys.executable, "-m", "memory_lsp", "teach", text, "--type", "gotcha",
                               "--cite", f"{f['path']}::{f['symbol']}", "--workspace", str(root)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            print(f"teach failed for {f['path']}::{f['symbol']}: {done.stderr.strip()}", file=sys.stderr)
            return None
        return text
    started = time.perf_counter()
    with ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(teach, enumerate(plan["files"])))
    for f, text in zip(plan["files"], texts):
        f["memory"] = text
    return sum(1 for x in texts if x), time.perf_counter() - started


def prepare(args) -> tuple[Path, dict]:
    root = corpora.multi_copy_workspace(Path(args.workspace), args.copies, tuple(args.packages))
    key = {"copies": args.copies, "packages": list(args.packages), "files": args.files, "seed": args.seed}
    plan_file = root / PLAN
    if plan_file.exists():
        plan = json.loads(plan_file.read_text())
        if plan.get("key") == key:
            return root, plan
    shutil.rmtree(root / ".memory", ignore_errors=True)
    plan = make_plan(root, args.files, args.seed)
    plan["key"] = key
    plan["memories_taught"], plan["teach_s"] = teach_all(root, plan)
    plan_file.write_text(json.dumps(plan, indent=1))
    return root, plan


def drop_index(root: Path) -> None:
    for p in (root / ".memory").glob("index.duckdb*"):
        if p.is_dir():  # index.duckdb.tmp: where DuckDB spilled beyond its memory limit
            shutil.rmtree(p)
        else:
            p.unlink()


# -- the process --------------------------------------------------------------------------------------------
def proc_status(pid: int, field: str) -> int | None:
    """A field of /proc/PID/status in kB (VmHWM, VmRSS), None if the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def children(pid: int) -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out


def descendants(pid: int) -> list[int]:
    """Children and their children (an index child's parse workers, a forkserver's)."""
    out, todo = [], children(pid)
    while todo:
        out.append(todo.pop())
        todo += children(out[-1])
    return out


def proc_wchan(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/wchan") as f:
            return f.read()
    except OSError:
        return None


def cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return None


class Stalled(Exception):
    pass


class Session:
    """One server process and the client talking to it."""

    def __init__(self, root: Path, log_file: Path, command: list[str], options: dict):
        self.root = root
        self.log_file = log_file
        self.command = command
        self.options = options
        self.progress: list[tuple[float, str | None]] = []  # (seconds after start, message) of each report
        self.client = LanguageClient(converter_factory=default_converter)
        register_lsp_features(self.client, {k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k != t.PROGRESS})
        self.progress_end: float | None = None  # seconds after process start
        self.lens_refreshes = 0
        self.started = 0.0
        self.pid = 0
        self.child_hwm_kb = 0
        self._sampler = None

        default_progress = DEFAULT_CLIENT_FEATURES[t.PROGRESS]

        @self.client.feature(t.PROGRESS)
        def progress(params: t.ProgressParams):
            default_progress(self.client, params)
            if isinstance(params.value, dict):
                self.progress.append((round(self.since_start(), 2), params.value.get("message")))
            if isinstance(params.value, dict) and params.value.get("kind") == "end" and self.progress_end is None:
                self.progress_end = time.perf_counter() - self.started
                self.progress_message = params.value.get("message")

        @self.client.feature(t.WORKSPACE_CODE_LENS_REFRESH)
        def lens_refresh(params):
            self.lens_refreshes += 1

    def since_start(self) -> float:
        return time.perf_counter() - self.started

    async def start(self) -> float:
        """Start the process and send `initialize`; returns seconds from spawn to the reply."""
        self.started = time.perf_counter()
        await self.client.start_io(*self.command, "--log-file", str(self.log_file))
        self.pid = self.client._server.pid
        self._sampler = asyncio.create_task(self._sample_children())
        params = t.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=self.root.as_uri(),
            process_id=os.getpid(), initialization_options=self.options)
        self.client.capabilities = params.capabilities
        await self.client.initialize_async(params)
        return self.since_start()

    def initialized(self) -> None:
        self.client.initialized(t.InitializedParams())

    async def _sample_children(self) -> None:
        """Peak RSS of the largest process under the server while they live: the first index's
        own process (workspace/apart.py) or, when the server indexes itself, a parse worker."""
        while True:
            for c in descendants(self.pid):
                self.child_hwm_kb = max(self.child_hwm_kb, proc_status(c, "VmHWM") or 0)
            await asyncio.sleep(0.5)

    async def wait_indexed(self, timeout: float, stall: float) -> float:
        """Seconds from process start to the progress end. Gives up after `timeout`, or after `stall`
        seconds in which no progress was reported and the server and its workers together used
        less than 2% of a core (a hang, not slow work)."""
        deadline = time.perf_counter() + timeout
        window, quiet = 10.0, 0.0
        while self.progress_end is None:
            cpu0, reports0, t0 = self.cpu(), len(self.progress), time.perf_counter()
            while self.progress_end is None and time.perf_counter() - t0 < window:
                await asyncio.sleep(0.05)
            if self.progress_end is not None:
                break
            busy = (self.cpu() - cpu0) / window
            quiet = quiet + window if busy < 0.02 and len(self.progress) == reports0 else 0.0
            if time.perf_counter() > deadline or quiet >= stall:
                kids = {c: proc_wchan(c) for c in children(self.pid)}
                self.kill()
                raise Stalled(
                    f"indexing did not end: {round(self.since_start())} s after start, last progress "
                    f"{self.progress[-1] if self.progress else None}, idle for {round(quiet)} s; "
                    f"server pid {self.pid}, workers (pid: kernel wait) {kids}; log: {self.log_file}")
        return self.progress_end

    def kill(self) -> None:
        """Our server and its workers, by pid (a hung server does not exit on shutdown)."""
        for pid in [*children(self.pid), self.pid]:
            try:
                os.kill(pid, 9)
            except OSError:
                pass

    def phases(self) -> dict:
        """The last "done/total files" report (parsing is about over then: what follows is writes,
        resolution and memories) and how many reports came."""
        parsing = [(at, msg) for at, msg in self.progress if msg and msg.endswith(" files")]
        return {"last_parse_report": parsing[-1] if parsing else None, "progress_reports": len(self.progress)}

    def cpu(self) -> float:
        return sum(cpu_seconds(p) or 0 for p in [self.pid, *children(self.pid)])

    async def wait_idle(self, timeout: float = 600, window: float = 2.0, busy: float = 0.10) -> float:
        """Wait until the server uses less than `busy` of a core over `window` seconds (graph loads,
        re-index jobs and refreshes are done); returns the seconds waited."""
        started = time.perf_counter()
        while time.perf_counter() - started < timeout:
            before = cpu_seconds(self.pid)
            await asyncio.sleep(window)
            after = cpu_seconds(self.pid)
            if before is None or after is None or (after - before) / window < busy:
                break
        return time.perf_counter() - started

    def hwm_kb(self) -> int | None:
        return proc_status(self.pid, "VmHWM")

    async def timings(self, reset: bool = False) -> dict:
        out = await self.client.protocol.send_request_async("memory/timings", {"reset": reset})
        return out._asdict() if hasattr(out, "_asdict") else dict(out or {})  # pygls gives a namedtuple

    async def hover(self, uri: str, line: int, character: int) -> tuple[t.Hover | None, float]:
        started = time.perf_counter()
        result = await self.client.text_document_hover_async(t.HoverParams(
            text_document=t.TextDocumentIdentifier(uri=uri), position=t.Position(line=line, character=character)))
        return result, (time.perf_counter() - started) * 1000

    def open(self, rel: str) -> str:
        uri = (self.root / rel).as_uri()
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=t.TextDocumentItem(
            uri=uri, language_id="python", version=1, text=(self.root / rel).read_text(encoding="utf-8"))))
        return uri

    async def stop(self) -> None:
        if self._sampler:
            self._sampler.cancel()
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), 120)
            self.client.exit(None)
            await asyncio.wait_for(self.client._server.wait(), 60)
        except (asyncio.TimeoutError, RuntimeError) as exc:
            print(f"server {self.pid} did not shut down cleanly ({exc!r}): terminating it", file=sys.stderr)
            self.client._server.terminate()
        await self.client.stop()


def log_lines(log_file: Path, *needles: str) -> list[str]:
    try:
        text = log_file.read_text(errors="replace")
    except OSError:
        return []
    return [line for line in text.splitlines() if any(n in line for n in needles)]


# -- the measurements -----------------------------------------------------------------------------------------
def new_session(args, root: Path, log_file: Path) -> Session:
    options = {"embeddings": {"background": False}}
    if args.workers is not None:
        options["indexing"] = {"workers": args.workers}
    return Session(root, log_file, args.server, options)


async def init_only(args, root: Path, logs: Path, label: str, cold: bool) -> list[float]:
    """Spawn -> `initialize` reply, then shutdown before `initialized` (nothing gets indexed)."""
    out = []
    for i in range(args.init_repeat):
        if cold:
            drop_index(root)
        s = new_session(args, root, logs / f"init-{label}-{i}.log")
        out.append(await s.start())
        await s.stop()
    return out


async def cold_run(args, root: Path, plan: dict, logs: Path) -> dict:
    """Fresh index: initialize, first useful hover (polled every 0.5 s), indexing end, peak RSS."""
    drop_index(root)
    s = new_session(args, root, logs / "cold.log")
    init_s = await s.start()
    s.initialized()
    target = plan["files"][0]
    uri = s.open(target["path"])
    seen = {"any": None, "useful": None, "polls": 0}

    async def poll_hover() -> None:
        while seen["useful"] is None:
            result, _ = await s.hover(uri, target["line"] - 1, target["col"] + 4)
            seen["polls"] += 1
            text = result.contents.value if result is not None else ""
            if text and seen["any"] is None:
                seen["any"] = s.since_start()
            if text and target["memory"][:40] in text:
                seen["useful"] = s.since_start()
                return
            await asyncio.sleep(0.5)
    poller = asyncio.create_task(poll_hover())
    try:
        index_s = await s.wait_indexed(args.timeout, args.stall)
        await asyncio.wait_for(asyncio.shield(poller), 120)  # hovers may lag the progress end a little
    except asyncio.TimeoutError:
        pass
    finally:
        poller.cancel()
    first_any, first_useful, polls = seen["any"], seen["useful"], seen["polls"]
    idle = await s.wait_idle()
    out = {"initialize_reply_s": round(init_s, 3), "first_hover_any_s": first_any and round(first_any, 2),
           "first_useful_hover_s": first_useful and round(first_useful, 2), "hover_polls": polls,
           "index_end_s": round(index_s, 2), "progress_end_message": getattr(s, "progress_message", None),
           **s.phases(), "settled_after_index_s": round(idle, 1), "vmhwm_mb": round((s.hwm_kb() or 0) / 1024, 1),
           "worker_vmhwm_mb": round(s.child_hwm_kb / 1024, 1), "log": str(s.log_file)}
    await s.stop()
    out["log_lines"] = log_lines(s.log_file, "indexed ", "impact graph", "ERROR", "Traceback", "WARNING")[:40]
    return out


def hover_positions(plan: dict, n: int, rng: random.Random, root: Path) -> list[tuple[str, int, int, str]]:
    """(path, 0-based line, character, kind): per file, the cited symbol's line, then lines inside
    symbols and random lines, half and half."""
    per_file = max(1, n // len(plan["files"]))
    out = []
    for f in plan["files"]:
        lines = (root / f["path"]).read_text(encoding="utf-8").count("\n") + 1
        syms = symbols_of(root / f["path"])
        out.append((f["path"], f["line"] - 1, f["col"] + 4, "cited symbol"))
        for k in range(per_file - 1):
            if k % 2 == 0 and syms:
                _q, start, end, col = rng.choice(syms)
                out.append((f["path"], rng.randint(start, end) - 1, col + 4, "symbol line"))
            else:
                out.append((f["path"], rng.randrange(lines), rng.randrange(40), "random line"))
    rng.shuffle(out)
    return out[:n]


async def warm_run(args, root: Path, plan: dict, logs: Path) -> dict:
    s = new_session(args, root, logs / "warm.log")
    init_s = await s.start()
    s.initialized()
    index_s = await s.wait_indexed(args.timeout, args.stall)
    settle = await s.wait_idle()
    uris = {f["path"]: s.open(f["path"]) for f in plan["files"]}
    settle_open = await s.wait_idle()
    await s.timings(reset=True)
    rng = random.Random(args.seed)

    rtt: dict[str, list[float]] = {h: [] for h in HANDLERS}
    by_kind: dict[str, list[int]] = {}
    for path, line, char, kind in hover_positions(plan, args.hovers, rng, root):
        result, ms = await s.hover(uris[path], line, char)
        rtt["hover"].append(ms)
        counts = by_kind.setdefault(kind, [0, 0])
        counts[0] += 1
        counts[1] += bool(result and result.contents.value)
    lens_total = unresolved = 0
    for path, uri in uris.items():
        started = time.perf_counter()
        lenses = await s.client.text_document_code_lens_async(t.CodeLensParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        rtt["code_lens"].append((time.perf_counter() - started) * 1000)
        for lens in lenses or []:
            started = time.perf_counter()
            done = await s.client.code_lens_resolve_async(lens)
            rtt["code_lens_resolve"].append((time.perf_counter() - started) * 1000)
            lens_total += 1
            unresolved += bool(done.command is None or "indexing" in done.command.title)
        started = time.perf_counter()
        await s.client.text_document_diagnostic_async(t.DocumentDiagnosticParams(
            text_document=t.TextDocumentIdentifier(uri=uri)))
        rtt["pull_diagnostics"].append((time.perf_counter() - started) * 1000)
    hwm_before_commands = s.hwm_kb() or 0
    impact_ms = []  # an editor's "dependents" lens clicked: memory.impact on the visited files
    for path in list(uris)[:IMPACT_COMMANDS]:
        started = time.perf_counter()
        await s.client.workspace_execute_command_async(t.ExecuteCommandParams(
            command="memory.impact", arguments=[{"target": path, "depth": 3}]))
        impact_ms.append((time.perf_counter() - started) * 1000)
    inside = await s.timings()
    rss_end = proc_status(s.pid, "VmRSS") or 0
    await asyncio.sleep(IDLE_S)
    rss_idle = proc_status(s.pid, "VmRSS") or 0
    out = {
        "initialize_reply_s": round(init_s, 3), "index_end_s": round(index_s, 2),
        "progress_end_message": getattr(s, "progress_message", None), **s.phases(),
        "settled_after_index_s": round(settle, 1), "settled_after_opening_s": round(settle_open, 1),
        "hovers_by_kind": {k: {"n": v[0], "non_empty": v[1]} for k, v in by_kind.items()},
        "lenses": lens_total, "lenses_without_counts": unresolved,
        "inside": {h: summary(inside.get(h, [])) for h in HANDLERS},
        "round_trip": {h: summary(v) for h, v in rtt.items()},
        "vmhwm_mb": round((s.hwm_kb() or 0) / 1024, 1), "vmrss_mb": round(rss_end / 1024, 1), "vmrss_idle_mb": round(rss_idle / 1024, 1),
        "vmhwm_before_commands_mb": round(hwm_before_commands / 1024, 1), "impact_command": summary(impact_ms),
        "worker_vmhwm_mb": round(s.child_hwm_kb / 1024, 1), "log": str(s.log_file),
    }
    await s.stop()
    out["log_lines"] = log_lines(s.log_file, "indexed ", "impact graph", "ERROR", "Traceback", "WARNING")[:40]
    return out


def machine() -> dict:
    import duckdb
    import pygls

    return {"cpus": os.cpu_count(), "nproc": int(subprocess.run(["nproc"], capture_output=True, text=True).stdout),
            "python": platform.python_version(), "duckdb": duckdb.__version__,
            "pygls": getattr(pygls, "__version__", None) or _dist_version("pygls"),
            "loadavg_at_start": os.getloadavg()}


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def table(r: dict) -> str:
    cold, warm = r["cold"], r["warm"]
    med = lambda xs: round(statistics.median(xs), 3)  # noqa: E731
    rows = [
        ("process start -> initialize reply, cold (median of %d)" % len(r["init_cold_s"]),
         f"{med(r['init_cold_s'])} s", "<= 1 s"),
        ("process start -> initialize reply, warm (median of %d)" % len(r["init_warm_s"]),
         f"{med(r['init_warm_s'])} s", "<= 1 s"),
        ("process start -> first useful hover, cold", f"{cold['first_useful_hover_s']} s", "-"),
        ("process start -> indexing ends, cold", f"{cold['index_end_s']} s", "-"),
        ("process start -> indexing ends, warm restart", f"{warm['index_end_s']} s", "-"),
    ]
    for h in HANDLERS:
        i, c = warm["inside"][h], warm["round_trip"][h]
        if i.get("n"):
            rows.append((f"{h}: inside the server, p50 / p99 (n={i['n']})", f"{i['p50_ms']} / {i['p99_ms']} ms",
                         "<= 5 / <= 20 ms" if h in ("hover", "code_lens", "code_lens_resolve") else "-"))
        if c.get("n"):
            rows.append((f"{h}: round trip over stdio, p50 / p99 (n={c['n']})", f"{c['p50_ms']} / {c['p99_ms']} ms",
                         "-"))
    rows += [("peak RSS of the server, cold run (indexing)", f"{cold['vmhwm_mb']} MB", "<= 300 MB"),
             ("peak RSS of the server, warm run, after hovers/lenses/diagnostics",
              f"{warm['vmhwm_before_commands_mb']} MB", "<= 300 MB"),
             (f"memory.impact command round trip, p50 / p99 (n={warm['impact_command']['n']})",
              f"{warm['impact_command']['p50_ms']} / {warm['impact_command']['p99_ms']} ms", "-"),
             ("peak RSS of the server, warm run, after the impact commands too", f"{warm['vmhwm_mb']} MB",
              "<= 300 MB"),
             ("RSS of the server at the end of the warm run, then after %d s idle" % IDLE_S,
              f"{warm['vmrss_mb']} / {warm.get('vmrss_idle_mb')} MB", "<= 300 MB"),
             ("peak RSS of the largest process under the server, cold (the first index's own process, "
              "or a parse worker)", f"{cold['worker_vmhwm_mb']} MB", "-")]
    lines = ["| measure | figure | target |", "| --- | --- | --- |"]
    return "\n".join(lines + [f"| {a} | {b} | {c} |" for a, b, c in rows])


async def run(args, result: dict) -> dict:
    root, plan = prepare(args)
    logs = Path(args.workspace + "-logs")
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir(parents=True)
    result.update({"workspace": str(root), "copies": args.copies, "packages": list(args.packages),
              "indexed_files": plan["indexed_files"], "memories": plan["memories_taught"],
              "teach_s": round(plan["teach_s"], 1), "hover_files": len(plan["files"]), "machine": machine(),
              "server": args.server, "workers": args.workers, "hovers": args.hovers})
    print(f"workspace {root}: {plan['indexed_files']} files, {plan['memories_taught']} memories", file=sys.stderr)
    result["init_cold_s"] = [round(x, 3) for x in await init_only(args, root, logs, "cold", cold=True)]
    print(f"initialize, cold: {result['init_cold_s']}", file=sys.stderr)
    result["cold"] = await cold_run(args, root, plan, logs)
    print(f"cold run: {json.dumps({k: v for k, v in result['cold'].items() if k != 'log_lines'})}", file=sys.stderr)
    result["init_warm_s"] = [round(x, 3) for x in await init_only(args, root, logs, "warm", cold=False)]
    print(f"initialize, warm: {result['init_warm_s']}", file=sys.stderr)
    result["warm"] = await warm_run(args, root, plan, logs)
    result["machine"]["loadavg_at_end"] = os.getloadavg()
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--copies", type=int, default=12, help="copies of the standard library (734 files each)")
    ap.add_argument("--packages", nargs="*", default=["django", "numpy", "pip", "setuptools"],
                    help="installed packages copied in beside the copies")
    ap.add_argument("--hovers", type=int, default=2000)
    ap.add_argument("--files", type=int, default=200, help="files the hovers and lenses visit (one memory each)")
    ap.add_argument("--workspace", default="/tmp/srvbench")
    ap.add_argument("--init-repeat", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=1800, help="seconds allowed for one indexing run")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--workers", type=int, default=None,
                    help="initializationOptions indexing.workers (default: the server's own default)")
    ap.add_argument("--stall", type=float, default=120,
                    help="give up when indexing reports nothing and uses no CPU for this many seconds")
    ap.add_argument("--server", nargs="+", default=SERVER, help="the server command (stdio)")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    result: dict = {}
    try:
        asyncio.run(run(args, result))
    except Stalled as exc:
        result["error"] = str(exc)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2))
    if "error" in result:
        raise SystemExit(f"failed: {result['error']} (partial results in {args.out})")
    print(table(result))


if __name__ == "__main__":
    main()
