"""Benchmark v (Rust): `#[cfg]` marking against rustc's own dep-info (issue 12 item 7).

Corpus: memchr 2.5.0 (Debian librust-memchr-dev, /usr/share/cargo/registry). Truth: `rustc
--emit=dep-info` on src/lib.rs under several configurations (plain, `--test`, the cfgs its
build.rs sets on x86_64, `memchr_libc`, `miri`, each with `feature="std"`): the source files
each configuration compiles. A file some configuration leaves out is conditional. Ours: every
`mod x;` edge (the module tree) should be marked `rust_cfg` exactly when its file is
conditional; and no edge from or to such a file should be shown plain.

    nice -n 10 python bench/bench_imports_rust.py --base /tmp/base-s4-langs

Needs rustc and `apt-get install librust-memchr-dev`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from bench_imports_other import HOME, index, prf, run

MOD_ITEM = re.compile(r"\bmod\s+(?:r#)?\w+\s*;\s*$")
MEMCHR = Path("/usr/share/cargo/registry/memchr-2.5.0")
SIMD = ["--cfg", "memchr_runtime_simd", "--cfg", "memchr_runtime_sse2", "--cfg", "memchr_runtime_sse42",
        "--cfg", "memchr_runtime_avx"]
CONFIGS = {"plain": [], "test": ["--test"], "build.rs cfgs": SIMD, "test + build.rs cfgs": ["--test", *SIMD],
           "memchr_libc": ["--cfg", "memchr_libc"], "miri": ["--cfg", "miri"]}


def corpus() -> Path:
    dest = HOME / "memchr-2.5.0"
    if not (dest / ".complete").exists():
        if not MEMCHR.is_dir():
            raise SystemExit("apt-get install librust-memchr-dev")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(MEMCHR, dest, ignore=shutil.ignore_patterns(".cargo-checksum.json"))
        (dest / ".complete").write_text("")
    return dest


def compiled(root: Path, flags: list[str]) -> set[str]:
    """The .rs files rustc reads for src/lib.rs under `flags` (dep-info is written even when
    a dev-dependency is missing: name resolution errors come after module loading)."""
    with tempfile.TemporaryDirectory() as tmp:
        dep = Path(tmp) / "d.d"
        run(["rustc", "--edition", "2018", "--crate-type", "lib", "--crate-name", "memchr",
             "--cfg", 'feature="std"', *flags, "--emit=dep-info", "-o", str(dep), "src/lib.rs"], cwd=root)
        if not dep.exists():
            raise SystemExit(f"rustc wrote no dep-info for {flags}")
        return {line[:-1] for line in dep.read_text().splitlines() if line.endswith(".rs:")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="a checkout of the baseline, put first on PYTHONPATH for 'before'")
    args = parser.parse_args()
    root = corpus()
    sources = {str(p.relative_to(root)) for p in (root / "src").rglob("*.rs")}
    per_config = {name: compiled(root, flags) for name, flags in CONFIGS.items()}
    left_out = {f for f in sources if any(f not in files for files in per_config.values())}
    out = {"corpus": "memchr 2.5.0 (Debian)", "rustc": run(["rustc", "--version"]).stdout.strip(),
           "files": len(sources), "compiled per configuration": {k: len(v) for k, v in per_config.items()},
           "left out by some configuration": len(left_out)}
    for label, pythonpath in (("before", args.base), ("after", None)):
        if label == "before" and not args.base:
            continue
        got = index(root, pythonpath)
        rows = [(p, m, t, s) for p, m, t, s in got["imports"] if t and p.startswith("src/")]
        mods = [(p, t, s) for p, m, t, s in rows if MOD_ITEM.search(m) and "::" not in m]
        out[label] = {
            "mod edges marked rust_cfg vs mod edges into a file some configuration leaves out":
                prf({(p, t) for p, t, s in mods if s == "rust_cfg"}, {(p, t) for p, t, _s in mods if t in left_out}),
            "edges from/to a left-out file shown plain": sum(
                1 for p, _m, t, s in rows if s != "rust_cfg" and (p in left_out or t in left_out)),
            "edges marked rust_cfg between files every configuration compiles (a use under #[cfg])": sum(
                1 for p, _m, t, s in rows if s == "rust_cfg" and p not in left_out and t not in left_out),
            "edges": len(rows), "mod edges": len(mods),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
