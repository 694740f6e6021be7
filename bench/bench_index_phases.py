"""Where one full index run goes: wall time of the writes (`_Writer.add`), import resolution
(`finish`), the graph passes (link, score), CPU of the main process and of the workers, and the
main process' peak RSS after each phase (bench/BENCHMARKS.md u).

    python bench/bench_index_phases.py ROOT DB [WORKERS]   (DB is deleted first)
"""
import sys, os, time, collections, json, resource

if __name__ != '__main__':  # a forkserver worker imports this file: nothing to run there
    raise SystemExit
root, db = sys.argv[1], sys.argv[2]
for s in ("", ".wal"):
    if os.path.exists(db + s): os.remove(db + s)
from memory_lsp.index import indexer
from memory_lsp.workspace import Workspace
T = collections.Counter(); R = {}
def _peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def wrap(obj, name, label):
    f = getattr(obj, name)
    def w(*a, **k):
        t = time.perf_counter()
        try: return f(*a, **k)
        finally:
            T[label] += time.perf_counter() - t; R[label] = round(_peak())
    setattr(obj, name, w)
wrap(indexer._Writer, "add", "write(add)")
wrap(indexer._Writer, "finish", "imports(finish)")
wrap(indexer, "_refresh_history", "git history")
ws = Workspace.open(root, db=db)
PASSES = sys.modules["memory_lsp.workspace.host"].PASSES
link, score = PASSES.link, PASSES.score
def L(*a):
    t = time.perf_counter(); r = link(*a); T["link(resolution, edges)"] += time.perf_counter() - t; R["link"] = round(_peak()); return r
def S(*a):
    t = time.perf_counter(); r = score(*a); T["score"] += time.perf_counter() - t; R["score"] = round(_peak()); return r
sys.modules["memory_lsp.workspace.host"].PASSES = PASSES._replace(link=L, score=S)
t = time.perf_counter(); c0 = os.times()
r = ws.index(workers=int(sys.argv[3]) if len(sys.argv) > 3 else 2)
total = time.perf_counter() - t; c1 = os.times()
T["total"] = total
print(json.dumps({k: round(v, 2) for k, v in T.items()}), "rss after:", R, "peak", round(_peak()),
      "main cpu", round(c1.user + c1.system - c0.user - c0.system, 2), "children cpu", round(c1.children_user + c1.children_system - c0.children_user - c0.children_system, 2))
