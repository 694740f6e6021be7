import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { impactItems, impactTarget, range0, searchItems } from "../src/results";

// real answers of the server (fixtures/README.md says how they were made)
function fixture(name: string) {
  return JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "test", "fixtures", name), "utf8"));
}

test("search results: memories and code, each with where it is", () => {
  const items = searchItems(fixture("search.json"));
  assert.deepEqual(items.map((i) => [i.label, i.description, i.target]), [
    ["$(book) parse splits on whitespace only", "gotcha · pkg/core.py:1-3", { path: "pkg/core.py", start: 1, end: 3 }],
    ["$(symbol-function) parse", "code · pkg/core.py:1-3", { path: "pkg/core.py", start: 1, end: 3 }],
    ["$(symbol-function) test_parse", "code · tests/test_core.py:4-5", { path: "tests/test_core.py", start: 4, end: 5 }],
    ["$(symbol-function) main", "code · pkg/app.py:4-5", { path: "pkg/app.py", start: 4, end: 5 }],
    ["$(symbol-function) run", "code · pkg/core.py:6-7", { path: "pkg/core.py", start: 6, end: 7 }],
  ]);
  assert.equal(items[1].detail, "def parse(text):");
});

test("a memory goes where its cited code is now; an orphan without code has no target", () => {
  const moved = { kind: "memory", type: "gotcha", text: "x\ny", path: "a.py", lines: [1, 2], state: "drifted",
    citations: [{ path: "a.py", start_line: 1, end_line: 2, current: { path: "b.py", start_line: 10, end_line: 12 } }] };
  const orphan = { kind: "memory", type: "fact", text: "z", path: null, lines: null, state: "orphaned", citations: [] };
  const [first, second] = searchItems({ results: [moved, orphan] });
  assert.deepEqual([first.label, first.description, first.target], ["$(book) x", "gotcha · b.py:10-12 · drifted", { path: "b.py", start: 10, end: 12 }]);
  assert.deepEqual([second.description, second.target], ["fact · no code cited · orphaned", undefined]);
});

test("impact results: dependents at their calling line, then the tests to run", () => {
  const items = impactItems(fixture("impact.json"));
  assert.deepEqual(items.map((i) => [i.label, i.description, i.target]), [
    ["$(references) run", "pkg/core.py:7 · depth 1 · confidence 0.9", { path: "pkg/core.py", start: 7, end: 7 }],
    ["$(references) test_parse", "tests/test_core.py:5 · depth 1 · confidence 0.5", { path: "tests/test_core.py", start: 5, end: 5 }],
    ["$(references) main", "pkg/app.py:5 · depth 1 · confidence 0.5", { path: "pkg/app.py", start: 5, end: 5 }],
    ["$(beaker) tests/test_core.py", "test to run", { path: "tests/test_core.py", start: 0, end: 0 }],
  ]);
  const deep = impactItems({ dependents: [{ path: "c.py", symbol: "h", depth: 2, lines: [], via: ["a.py::f", "b.py::g", "c.py::h"] }] });
  assert.deepEqual([deep[0].description, deep[0].detail], ["c.py · depth 2", "via b.py::g"]);
});

test("impact results: the functions reading a method come after its dependents, marked as found by name", () => {
  const items = impactItems({
    dependents: [{ path: "shop/app.py", symbol: "checkout", depth: 1, lines: [3], confidence: 0.9 }],
    reads: [{ path: "shop/billing.py", symbol: "bill", lines: [4, 9] }, { path: "tests/test_order.py", symbol: "test_total", lines: [4] }],
    reads_total: 3,
    tests: ["tests/test_order.py"],
  });
  assert.deepEqual(items.map((i) => [i.label, i.description, i.target]), [
    ["$(references) checkout", "shop/app.py:3 · depth 1 · confidence 0.9", { path: "shop/app.py", start: 3, end: 3 }],
    ["$(eye) bill", "shop/billing.py:4 · reads it (found by name)", { path: "shop/billing.py", start: 4, end: 4 }],
    ["$(eye) test_total", "tests/test_order.py:4 · reads it (found by name)", { path: "tests/test_order.py", start: 4, end: 4 }],
    ["$(eye) 1 more function reads it", "not listed (found by name)", undefined],
    ["$(beaker) tests/test_order.py", "test to run", { path: "tests/test_order.py", start: 0, end: 0 }],
  ]);
});

test("impact results: a function's uses without a call are marked so", () => {
  const items = impactItems({
    reads: [{ path: "app/use.py", symbol: null, lines: [2] }, { path: "app/use.py", symbol: "wire", lines: [4] }],
    reads_total: 4,
    reads_kind: "value",
  });
  assert.deepEqual(items.map((i) => [i.label, i.description]), [
    ["$(eye) app/use.py (module level)", "app/use.py:2 · uses it without a call"],
    ["$(eye) wire", "app/use.py:4 · uses it without a call"],
    ["$(eye) 2 more places use it without a call", "not listed"],  // not "read it (found by name)"
  ]);
});

test("1-based lines become VS Code's 0-based range; no line is the top of the file", () => {
  assert.deepEqual(range0({ path: "a", start: 10, end: 12 }), [9, 11]);
  assert.deepEqual(range0({ path: "a", start: 7, end: 7 }), [6, 6]);
  assert.deepEqual(range0({ path: "a", start: 0, end: 0 }), [0, 0]);
});

test("the impact target from the server's citation at the cursor", () => {
  assert.equal(impactTarget("pkg/core.py::parse", "pkg/core.py"), "pkg/core.py::parse");
  assert.equal(impactTarget("pkg/core.py::Parser.feed", "pkg/core.py"), "pkg/core.py::Parser.feed");
  assert.equal(impactTarget("pkg/core.py:4-9", "pkg/core.py"), "pkg/core.py");
  assert.equal(impactTarget(undefined, "pkg/core.py"), "pkg/core.py");
});
