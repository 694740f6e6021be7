// The extension's logic against the real server: `memory-lsp serve` from this repository's .venv
// (skipped when there is none, e.g. `npm test` before `make .venv/bin/.installed`), spoken to over
// stdio as vscode-languageclient would, with what the extension sends and reads.
import "./register";
import * as assert from "node:assert/strict";
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  CodeActionRequest, createProtocolConnection, ExecuteCommandRequest, InitializeRequest, ProtocolConnection,
  StreamMessageReader, StreamMessageWriter, WorkDoneProgress, WorkDoneProgressCreateRequest,
} from "vscode-languageserver-protocol/node";
import { PALETTE } from "../src/palette";
import { impactItems, impactTarget, searchItems } from "../src/results";
import { findServer } from "../src/server";
import { ConfigLike, serverSettings } from "../src/settings";
import { ProgressValue, Status } from "../src/status";
import { askTeach, teachRequest } from "../src/teach";

const REPO = path.resolve(__dirname, "..", "..", "..", "..");
const server = findServer({ command: "", args: ["serve", "--standalone"] }, [REPO], "");

const FILES: Record<string, string> = {
  "pkg/__init__.py": "",
  "pkg/core.py": 'def parse(text):\n    """Split on whitespace."""\n    return text.split()\n\n\ndef run(text):\n    return parse(text)\n',
  "pkg/app.py": 'from pkg.core import parse, run\n\n\ndef main():\n    return run("a b") + parse("c")\n',
};

// a user who set one hover setting in their workspace
const config: ConfigLike = {
  get: <T>(key: string) => (key === "hover" ? { enabled: true, maxMemories: 3, depth: 2 } : undefined) as T,
  inspect: <T>(key: string) => (key === "hover.maxMemories" ? { workspaceValue: 3 as T } : {}),
};

test("teach, search and impact against the real server", { skip: server ? false : "no .venv/bin/memory-lsp in the repository" }, async () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "memory-lsp-vscode-e2e-")));
  for (const [rel, text] of Object.entries(FILES)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const child = cp.spawn(server!.command, server!.args, { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => { stderr += chunk; });
  const connection: ProtocolConnection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const status = new Status();
  const configurationAsked: unknown[] = [];
  let indexed!: () => void;
  const done = new Promise<void>((resolve) => { indexed = resolve; });
  connection.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    connection.onProgress(WorkDoneProgress.type, token, (value) => {
      status.progress(token, value as ProgressValue);
      if (value.kind === "end") {
        indexed();
      }
    });
  });
  connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) => {
    configurationAsked.push(...params.items.map((i) => i.section));
    return params.items.map((i) => (i.section === "memory" ? serverSettings(config) : null));
  });
  connection.listen();
  try {
    const uri = pathToFileURL(root).href;
    const init = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid, rootUri: uri, workspaceFolders: [{ uri, name: "ws" }],
      capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true, workspaceFolders: true } },
      initializationOptions: serverSettings(config),
    });
    status.setState("running");
    const offered = init.capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(offered.includes("memory.teachDraft"), "the Teach action's command, which the middleware answers");
    for (const name of Object.keys(PALETTE).filter((n) => n !== "consolidate")) {
      assert.ok(offered.includes(`memory.${name}`), `the server offers memory.${name}`);
    }
    await connection.sendNotification("initialized", {});
    await done;
    assert.equal(status.view().text, "$(book) memory");
    assert.deepEqual(configurationAsked, ["memory"]);

    // the Teach action at the cursor in parse(): the middleware's prompts, then memory.teach
    const core = pathToFileURL(path.join(root, "pkg/core.py")).href;
    const actions = await connection.sendRequest(CodeActionRequest.type, {
      textDocument: { uri: core }, range: { start: { line: 1, character: 4 }, end: { line: 1, character: 4 } }, context: { diagnostics: [] },
    });
    const teachAction = (actions ?? []).map((a) => ("command" in a && typeof a.command === "object" ? a.command : undefined))
      .map((c) => (c ? teachRequest(c.command, c.arguments ?? []) : undefined)).find((r) => r !== undefined);
    assert.deepEqual(teachAction, { cite: ["pkg/core.py::parse"], type: "gotcha" });
    const args = await askTeach({ input: async () => "parse splits on whitespace only", pick: async (items) => items[0] }, teachAction!.cite);
    const taught = await connection.sendRequest(ExecuteCommandRequest.type, { command: "memory.teach", arguments: [args] });
    assert.equal(taught.created, true);

    const found = await connection.sendRequest(ExecuteCommandRequest.type, { command: "memory.search", arguments: [{ query: "whitespace", file: [] }] });
    // where it ranks among the code depends on whether the vectors are ready: not asserted
    const memory = searchItems(found).find((i) => i.label === "$(book) parse splits on whitespace only");
    assert.deepEqual(memory?.target, { path: "pkg/core.py", start: 1, end: 3 });

    const target = impactTarget(teachAction!.cite[0], "pkg/core.py");
    const impact = await connection.sendRequest(ExecuteCommandRequest.type, { command: "memory.impact", arguments: [{ target }] });
    const main = impactItems(impact).find((i) => i.label === "$(references) main");
    assert.deepEqual(main?.target, { path: "pkg/app.py", start: 5, end: 5 });
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
  } catch (error) {
    throw new Error(`${error}\nserver stderr:\n${stderr.slice(-3000)}`);
  } finally {
    connection.dispose();
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      await exited;
    }
    fs.rmSync(root, { recursive: true, force: true });
  }
});
