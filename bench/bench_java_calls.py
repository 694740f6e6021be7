"""Java CALLS against javac (issue 12 item 1, "the same ideas where they apply in ... Java").

The truth is the compiler's: each corpus is compiled with `javac -g` and every call site read
back from the class files with `javap -c -l -p`: the invoke instruction names the method javac
chose and the class it chose it in (the receiver's declared type), the line number table gives
the source line. That class's method, or the nearest superclass or interface of it that declares
the name (read from javap too), is the right target when it is a workspace method; sites whose
target is outside (`String.length`) are judged too: any edge there is wrong. Constructors
(`<init>`), lambdas' and anonymous classes' methods as targets are left out (the index has no
node for an anonymous class).

Corpora: JPype1's Java half (`native/java`, from its sdist on PyPI; its misses were read while
developing), the harness of its tests (`test/harness`, compiled against it: its calls are
nearly all Java's own, a check that they are not guessed), and, held out, java.util.regex and
java.text from the JDK's own sources (Debian's openjdk-17-source), compiled as java.base.

    python bench/bench_java_calls.py [--out result.json]

Reported per corpus: sites javac resolves inside the workspace, outside it, and precision /
recall of the CALLS edges at those sites, at every confidence and as listed (>= 0.5), and per
strategy.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import corpora  # noqa: E402

from memory_lsp.workspace import Workspace  # noqa: E402

JPYPE = "1.5.0"
HOME = Path(os.environ.get("MEMORY_LSP_BENCH_DIR", "/tmp/memory-lsp-bench")) / "java"
_INVOKE = re.compile(r"^\s*\d+: invoke(virtual|interface|static|special)\s+#\d+\s+// (?:Interface)?Method (\S+?)\.([^.:\s]+):")
_LINE = re.compile(r"^\s*line (\d+): (\d+)$")
_OFFSET = re.compile(r"^\s*(\d+): ")
_HEADER = re.compile(r"^(?:[\w ]*?)(?:class|interface|enum|record) ([\w.$]+)(?: extends ([\w.$<>?, ]+?))?(?: implements ([\w.$<>?, ]+?))? \{$")
_METHOD = re.compile(r"^  [^()]*?([\w$]+)\(.*\)[^;]*;$")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def jdk_sources() -> Path:
    """java.util.regex and java.text from the JDK's own sources (Debian's openjdk-17-source:
    src.zip beside the running JDK), compiled as the java.base module they belong to."""
    dest = HOME / "jdk-regex-text"
    if not (dest / ".complete").exists():
        home = Path(run(["java", "-XshowSettings:properties", "-version"]).stderr.split("java.home = ", 1)[1].split()[0])
        archive = home / "lib" / "src.zip"
        if not archive.exists():
            raise SystemExit("apt-get install openjdk-17-source (the JDK's src.zip)")
        shutil.rmtree(dest, ignore_errors=True)
        with zipfile.ZipFile(archive) as z:
            for member in z.namelist():
                if member.startswith(("java.base/java/util/regex/", "java.base/java/text/")) and member.endswith(".java"):
                    target = dest / member[len("java.base/"):]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(z.read(member))
        (dest / ".complete").write_text("")
    return dest


def compiled(ws: Path, name: str, classpath: Path | None = None, extra: tuple = ()) -> Path:
    """The workspace's .java files compiled (those javac rejects are left out, named on stderr)."""
    out = HOME / f"classes-{name}"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    files = sorted(str(p) for p in ws.rglob("*.java"))
    extra = (["-cp", str(classpath)] if classpath else []) + list(extra)
    while files:
        done = run(["javac", "-g", "-nowarn", "-d", str(out), *extra, *files])
        if done.returncode == 0:
            return out
        bad = {m.group(1) for m in re.finditer(r"^(/\S+\.java):\d+: error", done.stderr, re.M)}
        if not bad:
            raise SystemExit(done.stderr)
        print(f"{name}: javac rejects {len(bad)} files, left out of the truth", file=sys.stderr)
        files = [f for f in files if f not in bad]
    return out


def read_classes(classes: Path) -> tuple[dict, list]:
    """({class: (source file, superclass, interfaces, declared method names)}, [(class, line, owner,
    name)] for every invoke instruction)."""
    files = sorted(str(p) for p in classes.rglob("*.class"))
    text = run(["javap", "-c", "-l", "-p", *files]).stdout
    info, sites = {}, []
    cls = source = None
    pending, table = [], []

    def flush():
        for off, owner, name in pending:
            before = [ln for start, ln in table if start <= off]
            if before:
                sites.append((cls, before[-1], owner, name))
        pending.clear()
        table.clear()

    for raw in text.splitlines():
        if raw.startswith("Compiled from "):
            flush()
            source = raw.split('"')[1]
            continue
        head = _HEADER.match(_no_generics(raw)) if raw.endswith("{") else None
        if head:
            cls = head.group(1)
            bases = [b.split("<")[0].strip() for b in (head.group(3) or "").split(",") if b.strip()]
            sup = (head.group(2) or "").split("<")[0].strip() or None
            if "interface" in raw.split(cls)[0]:  # an interface's `extends` are its interfaces
                bases, sup = bases + [b.split("<")[0].strip() for b in (head.group(2) or "").split(",") if b.strip()], None
            info[cls] = (source, sup, bases, set())
            continue
        m = _METHOD.match(raw)
        if m and cls:
            flush()
            info[cls][3].add(m.group(1))
            continue
        m = _INVOKE.match(raw)
        if m:
            pending.append((int(_OFFSET.match(raw).group(1)), m.group(2).replace("/", "."), m.group(3)))
            continue
        m = _LINE.match(raw)
        if m:
            table.append((int(m.group(2)), int(m.group(1))))
    flush()
    return info, sites


def _no_generics(text: str) -> str:
    """`class a.Foo<T extends Comparable<T>> extends a.Base<T> {` without its `<...>` parts."""
    out, depth = [], 0
    for ch in text:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">" and depth > 0
    return "".join(out)


def definer(info: dict, owner: str, name: str, depth: int = 0) -> str | None:
    """The class that declares `name` for a call javac resolved in `owner` (its superclasses first,
    then its interfaces); None when that is outside the compiled workspace."""
    if owner not in info or depth > 20:
        return None
    _src, sup, faces, methods = info[owner]
    if name in methods:
        return owner
    for up in ([sup] if sup else []) + faces:
        found = definer(info, up, name, depth + 1)
        if found:
            return found
    return None


def truth(ws: Path, info: dict, sites: list) -> tuple[dict, set]:
    """({(path, line, name): target symbol id}, {(path, line, name) resolved outside})."""
    by_suffix = {str(p.relative_to(ws)): p for p in ws.rglob("*.java")}
    inside, outside = {}, set()
    for cls, line, owner, name in sites:
        if name.startswith(("<", "lambda$", "access$")) or cls not in info:
            continue
        pkg = cls.rsplit(".", 1)[0].replace(".", "/") if "." in cls else ""
        want = f"{pkg}/{info[cls][0]}" if pkg else info[cls][0]
        path = next((p for p in by_suffix if p == want or p.endswith("/" + want)), None)
        if path is None:
            continue
        key = (path, line, name)
        found = definer(info, owner, name)
        if found is None:
            outside.add(key)
            continue
        qual = found.rsplit(".", 1)[-1].replace("$", ".")
        if re.search(r"\.\d", "." + qual):
            continue  # an anonymous class: no node
        fpkg = found.rsplit(".", 1)[0].replace(".", "/") if "." in found else ""
        fpath = next((p for p in by_suffix if p.endswith(f"{fpkg}/{info[found][0]}")), None)
        if fpath:
            inside.setdefault(key, set()).add(f"{fpath}::{qual}.{name}")
    return inside, outside


def score(ws: Path, inside: dict, outside: set) -> dict:
    w = Workspace.open(ws, db=corpora.fresh_db(f"java-{ws.name}"))
    w.index(workers=0)
    rows = w.store.cursor().execute(
        "SELECT src_path, line, name, dst, strategy, confidence FROM edges WHERE kind = 'CALLS'").fetchall()
    w.close()
    ours = collections.defaultdict(list)
    for path, line, name, dst, strategy, conf in rows:
        ours[(path, line, name)].append((dst, strategy, conf))
    out = {"sites_inside": len(inside), "sites_outside": len(outside)}
    for label, floor in (("all", 0.0), ("listed", 0.5)):
        right = wrong = found = 0
        per = collections.defaultdict(lambda: [0, 0])
        for key in set(inside) | outside:
            for dst, strategy, conf in ours.get(key, ()):
                if conf < floor:
                    continue
                ok = dst in inside.get(key, ())
                right, wrong = right + ok, wrong + (not ok)
                per[strategy][0 if ok else 1] += 1
        for key, targets in inside.items():
            found += bool(targets & {d for d, _s, c in ours.get(key, ()) if c >= floor})
        out[label] = {"precision": round(right / max(right + wrong, 1), 3), "recall": round(found / max(len(inside), 1), 3),
                      "edges_judged": right + wrong,
                      "per_strategy": {s: {"precision": round(a / (a + b), 3), "edges": a + b} for s, (a, b) in sorted(per.items())}}
    return out


def corpus(name: str, src: Path, classpath: Path | None = None, module: str | None = None) -> tuple[dict, Path]:
    ws = HOME / f"ws-{name}"
    if not ws.exists():
        shutil.copytree(src, ws, ignore=shutil.ignore_patterns(".complete"))
    classes = compiled(ws, name, classpath, ("--patch-module", f"{module}={ws}") if module else ())
    info, sites = read_classes(classes)
    inside, outside = truth(ws, info, sites)
    return {"corpus": name, "files": len(list(ws.rglob("*.java"))), **score(ws, inside, outside)}, classes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    args = ap.parse_args()
    root = corpora.sdist("JPype1", JPYPE, HOME)
    native, classes = corpus("jpype-native", root / "native" / "java")
    harness, _ = corpus("jpype-harness", root / "test" / "harness", classes)
    jdk, _ = corpus("jdk-regex-text", jdk_sources(), module="java.base")
    results = [native, harness, jdk]
    print(json.dumps(results, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
