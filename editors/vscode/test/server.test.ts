import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { expand, findServer, searched } from "../src/server";

const trees: string[] = [];

function tree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "memory-lsp-vscode-"));
  trees.push(root);
  return root;
}

// each run left its trees in the temp folder (140 of them on one CI machine)
after(() => {
  for (const root of trees) fs.rmSync(root, { recursive: true, force: true });
});

function executable(file: string, mode = 0o755): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\n");
  fs.chmodSync(file, mode);
  return file;
}

const auto = { command: "", args: ["serve"] };

test("the workspace's .venv wins over venv and PATH", () => {
  const root = tree();
  const bin = path.join(root, "bin");
  executable(path.join(bin, "memory-lsp"));
  const venv = executable(path.join(root, "ws", "venv", "bin", "memory-lsp"));
  const dotVenv = executable(path.join(root, "ws", ".venv", "bin", "memory-lsp"));
  assert.deepEqual(findServer(auto, [path.join(root, "ws")], bin, "linux"),
    { command: dotVenv, args: ["serve"], found: "the workspace's .venv" });
  fs.rmSync(dotVenv);
  assert.equal(findServer(auto, [path.join(root, "ws")], bin, "linux")?.command, venv);
  fs.rmSync(venv);
  assert.deepEqual(findServer(auto, [path.join(root, "ws")], `/nonexistent:${bin}`, "linux"),
    { command: path.join(bin, "memory-lsp"), args: ["serve"], found: "PATH" });
});

test("a later folder's venv is found when the first has none; nothing found is undefined", () => {
  const root = tree();
  const second = executable(path.join(root, "b", ".venv", "bin", "memory-lsp"));
  fs.mkdirSync(path.join(root, "a"));
  assert.equal(findServer(auto, [path.join(root, "a"), path.join(root, "b")], "", "linux")?.command, second);
  assert.equal(findServer(auto, [path.join(root, "a")], "", "linux"), undefined);
  assert.match(searched(auto, [path.join(root, "a")]), /a\/\.venv\/bin\/memory-lsp, .*a\/venv\/bin\/memory-lsp, PATH$/);
});

test("a file that is not executable is not a server", () => {
  const root = tree();
  executable(path.join(root, ".venv", "bin", "memory-lsp"), 0o644);
  // even root needs one x bit for X_OK
  assert.equal(findServer(auto, [root], "", "linux"), undefined);
});

test("the setting: an absolute path, a path relative to the folder, ${workspaceFolder}, a name on PATH", () => {
  const root = tree();
  const tool = executable(path.join(root, "tools", "memory-lsp"));
  const args = ["serve", "--standalone"];
  assert.deepEqual(findServer({ command: tool, args }, [], "", "linux"), { command: tool, args, found: "memoryLsp.server.command" });
  assert.equal(findServer({ command: "tools/memory-lsp", args }, [root], "", "linux")?.command, tool);
  assert.equal(findServer({ command: "${workspaceFolder}/tools/memory-lsp", args }, [root], "", "linux")?.command, tool);
  assert.equal(findServer({ command: "memory-lsp", args }, [root], path.join(root, "tools"), "linux")?.command, tool);
  // a configured command that is not there is not replaced by a guess
  executable(path.join(root, ".venv", "bin", "memory-lsp"));
  assert.equal(findServer({ command: "/nonexistent/memory-lsp", args }, [root], "", "linux"), undefined);
  assert.deepEqual(findServer({ command: "", args: [] }, [root], "", "linux")?.args, ["serve"]);
});

test("expand: ~ and ${userHome} are the home folder", () => {
  assert.equal(expand("~/bin/memory-lsp", undefined), path.join(os.homedir(), "bin/memory-lsp"));
  assert.equal(expand("${userHome}/x", "/w"), `${os.homedir()}/x`);
  assert.equal(expand("${workspaceFolder}/.venv/bin/memory-lsp", "/w"), "/w/.venv/bin/memory-lsp");
});
