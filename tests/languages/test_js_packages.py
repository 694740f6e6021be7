"""A workspace package imported by its own name: package.json `exports`, `main`, source twins."""

from __future__ import annotations

import json

from memory_lsp.index.resolvers import EXTERNAL, ImportRow, ResolveContext
from memory_lsp.index.resolvers import javascript as js_resolver
from memory_lsp.index.resolvers.js_packages import split_specifier


def _resolve(tmp_path, files, rows):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text if isinstance(text, str) else json.dumps(text))
    ctx = ResolveContext(root=tmp_path, paths=frozenset(p for p in files if not p.endswith(".json")))
    out = js_resolver.resolve([ImportRow(p, i + 1, f"'{s}'", None, "x") for i, (p, s) in enumerate(rows)], ctx)
    return [ts if ts == EXTERNAL or not ts else (ts[0].path, ts[0].strategy) for ts in out]


def test_split_specifier():
    assert split_specifier("zod") == ("zod", ".")
    assert split_specifier("zod/v4/core") == ("zod", "./v4/core")
    assert split_specifier("@scope/pkg") == ("@scope/pkg", ".")
    assert split_specifier("@scope/pkg/a/b") == ("@scope/pkg", "./a/b")


# zod's shape: build outputs at the package's top, the sources under src/
ZOD = {
    "package.json": {"name": "zod", "exports": {
        "./package.json": "./package.json",
        ".": {"@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js",
              "require": "./index.cjs"},
        "./v4": {"types": "./v4/index.d.cts", "import": "./v4/index.js"},
        "./v4/core": {"types": "./v4/core/index.d.cts", "import": "./v4/core/index.js"},
        "./locales/*": {"import": "./locales/*.js"},
        "./internal": None}},
    "index.js": "", "index.d.cts": "", "v4/index.js": "",
    "src/index.ts": "", "src/v4/index.ts": "", "src/v4/core/index.ts": "", "src/locales/en.ts": "",
    "src/v4/classic/schemas.ts": "", "src/internal.ts": "",
}


def test_exports_through_conditions_to_the_source_twin(tmp_path):
    out = _resolve(tmp_path, ZOD, [
        ("src/v4/classic/schemas.ts", "zod"),          # types -> index.d.cts -> src/index.ts
        ("src/v4/classic/schemas.ts", "zod/v4"),       # v4/index.js is indexed, its TS twin wins
        ("src/v4/classic/schemas.ts", "zod/v4/core"),  # the build output is not even indexed
        ("src/v4/classic/schemas.ts", "zod/locales/en"),  # a subpath pattern
        ("src/v4/classic/schemas.ts", "zod/internal"),    # exported as null: not reachable
        ("src/v4/classic/schemas.ts", "zod/nothere"),     # not exported
        ("src/v4/classic/schemas.ts", "zodiac"),          # another package
    ])
    assert out == [("src/index.ts", "package_exports"), ("src/v4/index.ts", "package_exports"),
                   ("src/v4/core/index.ts", "package_exports"), ("src/locales/en.ts", "package_exports"),
                   [], [], EXTERNAL]


def test_custom_conditions_come_first(tmp_path):
    files = dict(ZOD)
    files["package.json"] = {"name": "zod", "exports": {
        ".": {"@zod/source": "./src/other.ts", "types": "./index.d.cts"}}}
    files["src/other.ts"] = ""
    files["tsconfig.json"] = '{"compilerOptions": {"customConditions": ["@zod/source"],}}'
    assert _resolve(tmp_path, files, [("src/index.ts", "zod")]) == [("src/other.ts", "package_exports")]


def test_dist_to_src_and_plain_js_packages(tmp_path):
    files = {
        "package.json": {"name": "root-app", "private": True, "workspaces": ["packages/*"]},
        "packages/core/package.json": {"name": "@acme/core", "main": "dist/index.js",
                                       "exports": {".": {"import": "./dist/esm/index.mjs",
                                                         "default": "./dist/index.js"},
                                                   "./utils/*": "./dist/utils/*.js"}},
        "packages/core/src/index.ts": "", "packages/core/src/utils/strings.ts": "",
        "packages/core/dist/index.js": "",
        "packages/web/package.json": {"name": "@acme/web", "main": "index.js"},
        "packages/web/index.js": "", "packages/web/src/index.js": "", "packages/web/lib/helper.js": "",
        "packages/app/package.json": {"name": "@acme/app"},
        "packages/app/index.js": "",
        "packages/app/main.ts": "",
    }
    out = _resolve(tmp_path, files, [
        ("packages/app/main.ts", "@acme/core"),                # dist/esm/index.mjs -> src/index.ts
        ("packages/app/main.ts", "@acme/core/utils/strings"),  # pattern, then dist -> src
        ("packages/app/main.ts", "@acme/web"),        # plain JS: main is the source itself
        ("packages/app/main.ts", "@acme/web/lib/helper"),  # no exports: a path in the package
        ("packages/app/main.ts", "@acme/app"),        # no main: the folder's index file
    ])
    assert out == [("packages/core/src/index.ts", "package_exports"),
                   ("packages/core/src/utils/strings.ts", "package_exports"),
                   ("packages/web/index.js", "package_main"),
                   ("packages/web/lib/helper.js", "package_main"),
                   ("packages/app/index.js", "package_main")]


def test_tsconfig_paths_win_over_the_package_name(tmp_path):
    files = dict(ZOD)
    files["tsconfig.json"] = '{"compilerOptions": {"paths": {"zod": ["./src/v4/index.ts"]}}}'
    assert _resolve(tmp_path, files, [("src/index.ts", "zod")]) == [("src/v4/index.ts", "tsconfig-paths")]


def test_a_babel_build_maps_back_to_its_js_source(tmp_path):
    files = {"package.json": {"name": "lib", "main": "dist/index.js"},
             "dist/index.js": "", "src/index.js": "", "test/a.test.js": ""}
    assert _resolve(tmp_path, files, [("test/a.test.js", "lib")]) == [("src/index.js", "package_main")]
