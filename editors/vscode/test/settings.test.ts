import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { ConfigLike, serverSetting, serverSettings } from "../src/settings";

// VS Code's layering: package.json defaults < user (global) < workspace < folder; `get` merges
// objects, `inspect` tells the layers apart.
function config(layers: { global?: Record<string, unknown>; workspace?: Record<string, unknown> }): ConfigLike {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const defaults: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries<{ default: unknown }>(pkg.contributes.configuration.properties)) {
    defaults[key.replace(/^memoryLsp\./, "")] = spec.default;
  }
  const layer = (values: Record<string, unknown> | undefined, key: string) => values?.[key];
  return {
    get<T>(key: string): T | undefined {
      const all = { ...defaults, ...layers.global, ...layers.workspace };
      if (key in all) {
        return all[key] as T;
      }
      const prefix = `${key}.`;
      const section = Object.entries(all).filter(([k]) => k.startsWith(prefix));
      return section.length ? Object.fromEntries(section.map(([k, v]) => [k.slice(prefix.length), v])) as T : undefined;
    },
    inspect<T>(key: string) {
      return { defaultValue: defaults[key] as T, globalValue: layer(layers.global, key) as T, workspaceValue: layer(layers.workspace, key) as T };
    },
  };
}

test("only the values the user set are sent, in the server's sections and camelCase keys", () => {
  assert.deepEqual(serverSettings(config({})), {});
  const sent = serverSettings(config({
    global: { "hover.maxMemories": 3, "indexing.excludes": ["generated/"], "server.command": "/x/memory-lsp" },
    workspace: { "hover.maxMemories": 4, "codeLens.enabled": false, "diagnostics.minConfidence": 0.5 },
  }));
  assert.deepEqual(sent, {
    hover: { maxMemories: 4 }, // the workspace's value over the user's
    indexing: { excludes: ["generated/"] },
    codeLens: { enabled: false },
    diagnostics: { minConfidence: 0.5 },
  });
});

test("a key package.json does not declare yet still reaches the server", () => {
  assert.deepEqual(serverSettings(config({ workspace: { "codeLens.minDependents": 5 } })), { codeLens: { minDependents: 5 } });
});

test("the server command setting, with defaults for missing or bad values", () => {
  assert.deepEqual(serverSetting(config({})), { command: "", args: ["serve"] });
  assert.deepEqual(serverSetting(config({ workspace: { "server.command": "~/m", "server.args": ["serve", "--standalone"] } })),
    { command: "~/m", args: ["serve", "--standalone"] });
  assert.deepEqual(serverSetting(config({ workspace: { "server.command": 7, "server.args": "serve" } })), { command: "", args: ["serve"] });
});
