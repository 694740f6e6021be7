import "./register"; // before anything that imports vscode
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, test } from "node:test";
import * as vscode from "vscode";
import { executeCommandMiddleware, PALETTE, runEntry, ServerLink } from "../src/palette";
import * as stub from "./vscode-stub";

// the server's answers come from a table; every request is recorded
function server(answers: Record<string, unknown>, offered = Object.keys(answers)) {
  const sent: [string, Record<string, unknown>][] = [];
  const link: ServerLink = {
    execute: async (command, args) => {
      sent.push([command, args]);
      if (!(command in answers)) {
        throw new Error(`unexpected ${command}`);
      }
      return answers[command];
    },
    offers: (command) => offered.includes(command),
    codeActions: async () => [{ command: { command: "memory.teachDraft", arguments: [{ cite: ["pkg/core.py::parse"], type: "gotcha" }] } }],
  };
  return { link, sent };
}

const WS = "/w/project";
const taught = { id: "01M841RC8BEGD8FN9YY30PKYKR", created: true, warnings: [], similar: [] };

beforeEach(() => stub.reset());

test("every palette entry has a command in package.json, and every package.json command a handler", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  const handled = [...Object.keys(PALETTE).map((n) => `memoryLsp.${n}`), "memoryLsp.restart", "memoryLsp.showOutput"].sort();
  assert.deepEqual(contributed, handled);
});

test("the server's Teach action prompts for the text and type, then runs memory.teach", async () => {
  const { link, sent } = server({ "memory.teach": taught });
  let forwarded = false;
  const middleware = executeCommandMiddleware(() => link);
  stub.answers.push("parse() splits on whitespace only", (items: { label: string }[]) => items.find((i) => i.label === "decision"));
  const result = await middleware("memory.teachDraft", [{ cite: ["src/flask/helpers.py:195-199"], type: "gotcha" }],
    () => { forwarded = true; });
  assert.equal(result, undefined);
  assert.equal(forwarded, false, "no draft file: the server's memory.teachDraft is not run");
  assert.deepEqual(sent, [["memory.teach", { text: "parse() splits on whitespace only", type: "decision", cite: ["src/flask/helpers.py:195-199"] }]]);
  assert.equal(stub.recorded.inputs[0].title, "Teach a memory about src/flask/helpers.py:195-199");
  assert.deepEqual(stub.recorded.messages, [{ level: "info", text: "memory-lsp: stored memory 01M841RC8BEGD8FN9YY30PKYKR" }]);
});

test("other commands pass through the middleware; a cancelled prompt stores nothing", async () => {
  const { link, sent } = server({ "memory.teach": taught });
  const middleware = executeCommandMiddleware(() => link);
  const seen: string[] = [];
  await middleware("memory.feedback", [{ id: "x", verdict: "wrong" }], (command) => { seen.push(command); });
  await middleware("memory.teach", [{ text: "given", type: "fact", cite: [] }], (command) => { seen.push(command); });
  assert.deepEqual(seen, ["memory.feedback", "memory.teach"]);
  stub.answers.push(undefined); // Escape in the input box
  await middleware("memory.teachDraft", [{ cite: ["a.py:1-2"], type: "gotcha" }], () => assert.fail("forwarded"));
  assert.deepEqual(sent, []);
  assert.deepEqual(stub.recorded.messages, []);
});

test("Teach from the palette cites the selection, relative to its workspace folder", async () => {
  stub.setFolders(WS, "/w/other");
  stub.window.activeTextEditor = stub.editorAt("/w/other/src/a.py", new stub.Selection(new stub.Position(9, 4), new stub.Position(12, 0)));
  const { link, sent } = server({ "memory.teach": taught });
  stub.answers.push("retries are capped at 3", (items: { label: string }[]) => items[0]);
  await runEntry("teach", link);
  assert.deepEqual(sent, [["memory.teach", { text: "retries are capped at 3", type: "gotcha", cite: ["src/a.py:10-12"], workspace: "/w/other" }]]);
});

test("Teach with no selection cites the symbol the server names at the cursor", async () => {
  stub.setFolders(WS);
  stub.window.activeTextEditor = stub.editorAt(`${WS}/pkg/core.py`);
  const { link, sent } = server({ "memory.teach": taught });
  stub.answers.push("text", (items: { label: string }[]) => items[0]);
  await runEntry("teach", link);
  assert.deepEqual(sent[0][1].cite, ["pkg/core.py::parse"]);
});

test("Search: the picked result opens at its lines", async () => {
  stub.setFolders(WS);
  const search = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "test", "fixtures", "search.json"), "utf8"));
  const { link, sent } = server({ "memory.search": search });
  stub.answers.push("parse", (items: { label: string }[]) => items.find((i) => i.label.endsWith(" run")));
  await runEntry("search", link);
  assert.deepEqual(sent, [["memory.search", { query: "parse", file: [] }]]);
  assert.equal(stub.recorded.opened.length, 1);
  assert.equal(stub.recorded.opened[0].file, `${WS}/pkg/core.py`);
  assert.equal(stub.recorded.opened[0].selection?.active.line, 5); // run() is on lines 6-7
});

test("Impact: the input is the symbol at the cursor; a dependent opens at its calling line", async () => {
  stub.setFolders(WS);
  stub.window.activeTextEditor = stub.editorAt(`${WS}/pkg/core.py`);
  const impact = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "test", "fixtures", "impact.json"), "utf8"));
  const { link, sent } = server({ "memory.impact": impact });
  // the input box is accepted as suggested
  stub.answers.push((o: { value: string }) => o.value, (items: { label: string }[]) => items.find((i) => i.label.endsWith(" main")));
  await runEntry("impact", link);
  assert.deepEqual(sent, [["memory.impact", { target: "pkg/core.py::parse" }]]);
  assert.equal(stub.recorded.picks[0].options.title, "What depends on pkg/core.py::parse");
  assert.equal(stub.recorded.opened[0].file, `${WS}/pkg/app.py`);
  assert.equal(stub.recorded.opened[0].selection?.active.line, 4);
});

test("Consolidate on a server without it says so; nothing runs while the server is down", async () => {
  const { link, sent } = server({ "memory.doctor": { healthy: true } });
  await runEntry("consolidate", link);
  assert.deepEqual(stub.recorded.messages, [{ level: "info", text: "memory-lsp: this server does not offer memory.consolidate yet (update memory-lsp)" }]);
  await runEntry("doctor", undefined);
  assert.match(stub.recorded.messages[1].text, /the server is not running/);
  assert.deepEqual(sent, []);
});

test("a server error is one message, not an exception", async () => {
  const { link } = server({ "memory.stats": {} }, ["memory.export"]);
  stub.answers.push("markdown");
  await runEntry("export", link);
  assert.deepEqual(stub.recorded.messages, [{ level: "error", text: "memory-lsp: unexpected memory.export" }]);
});

test("Feedback: pick a memory, then a verdict", async () => {
  const memories = [{ id: "m1", type: "gotcha", text: "first", state: "valid", pinned: false, needs_review: false, citations: [] },
    { id: "m2", type: "fact", text: "second", state: "drifted", pinned: false, needs_review: false, citations: [{ path: "a.py", start_line: 3, end_line: 4 }] }];
  const { link, sent } = server({ "memory.memories": { memories }, "memory.feedback": { id: "m2", ok: true } });
  stub.answers.push((items: { memory: { id: string } }[]) => items.find((i) => i.memory.id === "m2"), "outdated");
  await runEntry("feedback", link);
  assert.deepEqual(sent, [["memory.memories", {}], ["memory.feedback", { id: "m2", verdict: "outdated" }]]);
  assert.deepEqual(stub.recorded.messages, [{ level: "info", text: "memory-lsp: recorded your verdict on “second”" }]);
  const shown = stub.recorded.picks[0].items as { label: string; description: string; detail: string }[];
  assert.deepEqual(shown.map((i) => [i.label, i.description, i.detail]), [["first", "gotcha", "global"], ["second", "fact · drifted", "a.py:3-4"]]);
  assert.equal(vscode.window, stub.window as unknown);
});

test("a lens's memory.impact runs on the server and its answer becomes a quick pick", async () => {
  stub.setFolders(WS, "/w/other");
  const impact = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "test", "fixtures", "impact.json"), "utf8"));
  const middleware = executeCommandMiddleware(() => server({}).link);
  const ran: unknown[] = [];
  stub.answers.push((items: { label: string }[]) => items.find((i) => i.label.endsWith(" main")));
  const args = [{ target: "pkg/core.py::parse", depth: 2, workspace: "file:///w/other" }];
  const result = await middleware("memory.impact", args, (command, a) => { ran.push([command, a]); return impact; });
  assert.equal(result, impact);
  assert.deepEqual(ran, [["memory.impact", args]]);
  assert.equal(stub.recorded.picks[0].options.title, "What depends on pkg/core.py::parse");
  assert.equal(stub.recorded.opened[0].file, "/w/other/pkg/app.py");
});

test("a refused teach from the Teach action is one error message", async () => {
  const middleware = executeCommandMiddleware(() => server({}).link);
  stub.answers.push("the key is AKIA...", (items: { label: string }[]) => items[0]);
  await middleware("memory.teachDraft", [{ cite: ["a.py:1-2"], type: "gotcha" }], () => assert.fail("forwarded"));
  assert.deepEqual(stub.recorded.messages, [{ level: "error", text: "memory-lsp: unexpected memory.teach" }]);
});
