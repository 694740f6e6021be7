"""Benchmark v (Rust): `#[cfg]` marking against rustc's own dep-info (issue 12 item 7).

Corpus: memchr 2.5.0 (Debian librust-memchr-dev, /usr/share/cargo/registry). Truth: `rustc
--emit=dep-info` on src/lib.rs under several configurations (plain, `--test`, the cfgs its
build.rs sets on x86_64, `memchr_libc`, `miri`, each with `feature="std"`): the source files
each configuration compiles. A file some configuration leaves out is conditional. Ours: every
`mod x;` edge (the module tree) should be marked `rust_cfg` exactly when its file is
conditional; and no edge from or to such a file should be shown plain.

    nice -n 10 python bench/bench_imports_rust.py --base /tmp/base-s4-langs [--crate libc]

`--crate libc`: libc 0.2.139 (Debian librust-libc-dev), whose modules are declared inside
`cfg_if!` branches; one configuration (this host: rustc has no other target's `core` here), so
"left out" means left out on x86_64 Linux. Also reported for both crates: the files rustc
compiles that a `mod` edge reaches (the module tree found).

Needs rustc and `apt-get install librust-memchr-dev librust-libc-dev`.
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


LIBC = Path("/usr/share/cargo/registry/libc-0.2.139")
# crate -> (Debian source, package, edition, configurations)
CRATES = {"memchr": (MEMCHR, "librust-memchr-dev", "2018", CONFIGS),
          "libc": (LIBC, "librust-libc-dev", "2015", {"plain (x86_64 Linux)": []})}


def corpus(crate: str = "memchr") -> Path:
    source, package = CRATES[crate][:2]
    dest = HOME / source.name
    if not (dest / ".complete").exists():
        if not source.is_dir():
            raise SystemExit(f"apt-get install {package}")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".cargo-checksum.json"))
        (dest / ".complete").write_text("")
    return dest


def compiled(root: Path, flags: list[str], crate: str = "memchr") -> set[str]:
    """The .rs files rustc reads for src/lib.rs under `flags` (dep-info is written even when
    a dev-dependency is missing: name resolution errors come after module loading)."""
    with tempfile.TemporaryDirectory() as tmp:
        dep = Path(tmp) / "d.d"
        run(["rustc", "--edition", CRATES[crate][2], "--crate-type", "lib", "--crate-name", crate,
             "--cfg", 'feature="std"', *flags, "--emit=dep-info", "-o", str(dep), "src/lib.rs"], cwd=root)
        if not dep.exists():
            raise SystemExit(f"rustc wrote no dep-info for {flags}")
        return {line[:-1] for line in dep.read_text().splitlines() if line.endswith(".rs:")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", help="a checkout of the baseline, put first on PYTHONPATH for 'before'")
    parser.add_argument("--crate", choices=sorted(CRATES), default="memchr")
    args = parser.parse_args()
    root = corpus(args.crate)
    sources = {str(p.relative_to(root)) for p in (root / "src").rglob("*.rs")}
    per_config = {name: compiled(root, flags, args.crate) for name, flags in CRATES[args.crate][3].items()}
    left_out = {f for f in sources if any(f not in files for files in per_config.values())}
    every = set.union(*per_config.values()) - {"src/lib.rs"}
    out = {"corpus": f"{root.name} (Debian)", "rustc": run(["rustc", "--version"]).stdout.strip(),
           "files": len(sources), "compiled per configuration": {k: len(v) for k, v in per_config.items()},
           "left out by some configuration": len(left_out)}
    for label, pythonpath in (("before", args.base), ("after", None)):
        if label == "before" and not args.base:
            continue
        got = index(root, pythonpath)
        rows = [(p, m, t, s) for p, m, t, s in got["imports"] if t and p.startswith("src/")]
        # `mod x;`, or the bare `mod` token of a declaration inside cfg_if! (resolvers/rust.py)
        mods = [(p, t, s) for p, m, t, s in rows if (MOD_ITEM.search(m) or m == "mod") and "::" not in m]
        out[label] = {
            "mod edges marked rust_cfg vs mod edges into a file some configuration leaves out":
                prf({(p, t) for p, t, s in mods if s == "rust_cfg"}, {(p, t) for p, t, _s in mods if t in left_out}),
            "edges from/to a left-out file shown plain": sum(
                1 for p, _m, t, s in rows if s != "rust_cfg" and (p in left_out or t in left_out)),
            "edges marked rust_cfg between files every configuration compiles (a use under #[cfg])": sum(
                1 for p, _m, t, s in rows if s == "rust_cfg" and p not in left_out and t not in left_out),
            "edges": len(rows), "mod edges": len(mods),
            "files some configuration compiles, reached by a mod edge": prf({t for _p, t, _s in mods} & every, every),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
