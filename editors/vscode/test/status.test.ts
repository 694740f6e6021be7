import * as assert from "node:assert/strict";
import { test } from "node:test";
import { Status } from "../src/status";

test("indexing progress, then ready", () => {
  const s = new Status();
  assert.equal(s.view().text, "$(sync~spin) memory");
  s.setState("running", "the workspace's .venv");
  assert.equal(s.view().text, "$(book) memory");
  s.progress("t1", { kind: "begin", title: "Indexing flask", message: "opening the index", percentage: 0 });
  assert.deepEqual(s.view(), { text: "$(sync~spin) memory 0%", tooltip: "memory-lsp: Indexing flask: opening the index", error: false });
  s.progress("t1", { kind: "report", message: "120/300 files", percentage: 40 });
  assert.deepEqual(s.view(), { text: "$(sync~spin) memory 40%", tooltip: "memory-lsp: Indexing flask: 120/300 files", error: false });
  s.progress("t1", { kind: "report", percentage: 41.6 }); // a report without a message keeps the last one
  assert.equal(s.view().text, "$(sync~spin) memory 42%");
  assert.equal(s.view().tooltip, "memory-lsp: Indexing flask: 120/300 files");
  s.progress("t1", { kind: "end", message: "done" });
  assert.deepEqual(s.view(), { text: "$(book) memory", tooltip: "memory-lsp: ready (the workspace's .venv)", error: false });
});

test("two folders index at once; a failed index is shown until the next one", () => {
  const s = new Status();
  s.setState("running");
  s.progress("a", { kind: "begin", title: "Indexing a", percentage: 10 });
  s.progress("b", { kind: "begin", title: "Indexing b" });
  assert.equal(s.view().text, "$(sync~spin) memory 10% (+1)");
  assert.equal(s.view().tooltip, "memory-lsp: Indexing a\nIndexing b");
  s.progress("a", { kind: "end", message: "done" });
  s.progress("b", { kind: "end", message: "failed: database is locked" });
  assert.deepEqual(s.view(), { text: "$(warning) memory", tooltip: "memory-lsp: Indexing b: failed: database is locked", error: true });
  s.progress("b", { kind: "begin", title: "Indexing b" });
  s.progress("b", { kind: "end", message: "done" });
  assert.equal(s.view().text, "$(book) memory");
});

test("no server, a failed start, a stop (progress forgotten)", () => {
  const s = new Status();
  s.setState("no-server", "looked in /w/.venv/bin/memory-lsp, PATH");
  assert.deepEqual(s.view(), { text: "$(error) memory", error: true,
    tooltip: "memory-lsp: no server found (looked in /w/.venv/bin/memory-lsp, PATH). Set memoryLsp.server.command." });
  s.setState("failed", "spawn EACCES");
  assert.match(s.view().tooltip, /the server failed: spawn EACCES/);
  s.setState("running");
  s.progress("a", { kind: "begin", title: "Indexing a" });
  s.setState("stopped");
  assert.deepEqual(s.view(), { text: "$(circle-slash) memory", tooltip: "memory-lsp: the server is stopped", error: false });
  s.setState("stopped", "no folder open");
  assert.equal(s.view().tooltip, "memory-lsp: the server is stopped (no folder open)");
  s.setState("running");
  assert.equal(s.view().text, "$(book) memory");
});
