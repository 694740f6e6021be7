// The whole extension in this process: extension.ts's activate() with the real vscode-languageclient
// (the `vscode` API stubbed) starting the real server from this repository's .venv, then the Teach
// action's command, a palette search, a restart and deactivate(). Skipped without a .venv.
import "./register";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { activate, deactivate } from "../src/extension";
import { findServer } from "../src/server";
import * as stub from "./vscode-stub";

const REPO = path.resolve(__dirname, "..", "..", "..", "..");
const server = findServer({ command: "", args: [] }, [REPO], "");

async function until(what: string, ok: () => boolean, seconds = 120): Promise<void> {
  for (let i = 0; i < seconds * 10; i++) {
    if (ok()) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`still waiting for ${what}; output:\n${stub.output.join("\n").slice(-3000)}`);
}

test("a window without a folder starts no server and says so in the status bar only", async () => {
  stub.reset();
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  try {
    await activate(context as never);
    assert.equal(stub.statusItems.at(-1)!.text, "$(circle-slash) memory");
    assert.equal(stub.statusItems.at(-1)!.tooltip, "memory-lsp: the server is stopped (no folder open)");
    assert.deepEqual(stub.recorded.messages, []);
  } finally {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  }
});

test("no server found: an error in the status bar and a message naming where it looked; the palette says so", async () => {
  stub.reset();
  stub.setFolders("/nonexistent/project");
  stub.configuration["memoryLsp.server.command"] = "/nonexistent/bin/memory-lsp";
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  try {
    await activate(context as never);
    assert.equal(stub.statusItems.at(-1)!.text, "$(error) memory");
    assert.deepEqual(stub.recorded.messages, [{ level: "error", text: "memory-lsp: no memory-lsp found (looked in "
      + 'memoryLsp.server.command = "/nonexistent/bin/memory-lsp"). Install it (pip install memory-lsp) or set memoryLsp.server.command.' }]);
    await stub.commands.executeCommand("memoryLsp.search");
    assert.match(stub.recorded.messages[1].text, /the server is not running/);
    assert.deepEqual(stub.recorded.inputs, []);
  } finally {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
    delete stub.configuration["memoryLsp.server.command"];
  }
});

test("activate, teach through the server's action, search, restart, deactivate", { skip: server ? false : "no .venv/bin/memory-lsp in the repository" }, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memory-lsp-vscode-ext-")));
  fs.mkdirSync(path.join(root, "pkg"));
  fs.writeFileSync(path.join(root, "pkg", "core.py"), 'def parse(text):\n    return text.split()\n\n\ndef run(text):\n    return parse(text)\n');
  stub.reset();
  stub.setFolders(root);
  stub.configuration["memoryLsp.server.command"] = server!.command;
  stub.configuration["memoryLsp.server.args"] = ["serve", "--standalone"];
  stub.configuration["memoryLsp.hover.maxMemories"] = 500; // out of range: the server says so, naming where it came from
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  try {
    await activate(context as never);
    const item = stub.statusItems.at(-1)!;
    // the spinner with a percentage (indexing began), then the book (it ended)
    const indexed = () => item.history.some((t) => /^\$\(sync~spin\) memory \d+%/.test(t)) && item.text === "$(book) memory";
    await until("the index", indexed);
    const warned = (source: string) => stub.recorded.messages.some((m) => m.level === "warning"
      && m.text.includes(`(${source}): setting hover.maxMemories = 500 is not valid`));
    await until("the server's word on the settings", () => warned("initializationOptions") && warned("workspace/configuration"));
    assert.ok(stub.registered.has("memory.teachDraft"), "the client registered the server's commands");
    assert.ok(stub.registered.has("memoryLsp.teach"));

    // the light bulb's "Teach a memory about parse": prompts, then memory.teach
    stub.answers.push("parse splits on whitespace only", (items: { label: string }[]) => items[0]);
    await stub.commands.executeCommand("memory.teachDraft", { cite: ["pkg/core.py::parse"], type: "gotcha" });
    const stored = stub.recorded.messages.find((m) => m.text.startsWith("memory-lsp: stored memory "));
    assert.ok(stored, JSON.stringify(stub.recorded.messages));
    const drafts = path.join(root, ".memory", "drafts");
    assert.deepEqual(fs.existsSync(drafts) ? fs.readdirSync(drafts) : [], [], "no draft file in VS Code");

    // the memory, wherever it ranks (that depends on whether the vectors are ready)
    stub.answers.push("whitespace", (items: { label: string }[]) => items.find((i) => i.label === "$(book) parse splits on whitespace only"));
    await stub.commands.executeCommand("memoryLsp.search");
    assert.equal(stub.recorded.opened.length, 1, "the memory was in the quick pick and opened its code");
    assert.equal(stub.recorded.opened[0].file, path.join(root, "pkg", "core.py"));

    await stub.commands.executeCommand("memoryLsp.restart");
    item.history.length = 0;
    await until("the restarted server's index", indexed);
    assert.ok(stub.registered.has("memory.teachDraft"), "the restarted client registered the commands again");
    assert.equal(stub.recorded.messages.filter((m) => m.level === "error").length, 0, JSON.stringify(stub.recorded.messages));
  } finally {
    await deactivate();
    for (const d of context.subscriptions) {
      d.dispose();
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
});
