// The extension's settings -> the server's settings tree (memory_lsp/settings.py: sections with
// camelCase keys). Only values the user set are sent, so the server's own defaults stay the truth;
// a key the server learns later works in settings.json before package.json declares it.

/** The part of `vscode.WorkspaceConfiguration` this needs (a stub in the tests). */
export interface ConfigLike {
  get<T>(key: string): T | undefined;
  inspect<T>(key: string): { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined;
}

// the server's sections (settings.Config's fields, camelCase); `server` and `trace` are the extension's
export const SERVER_SECTIONS = ["indexing", "hover", "diagnostics", "codeLens", "embeddings"] as const;

export type ServerSettings = Record<string, Record<string, unknown>>;

/** What `initializationOptions` (and a `workspace/configuration` for "memory") carries. */
export function serverSettings(config: ConfigLike): ServerSettings {
  const out: ServerSettings = {};
  for (const section of SERVER_SECTIONS) {
    const merged = config.get<Record<string, unknown>>(section);
    if (!merged || typeof merged !== "object") {
      continue;
    }
    for (const key of Object.keys(merged)) {
      const info = config.inspect<unknown>(`${section}.${key}`);
      const value = info?.workspaceFolderValue ?? info?.workspaceValue ?? info?.globalValue;
      if (value !== undefined) {
        (out[section] ??= {})[key] = value;
      }
    }
  }
  return out;
}

/** The server command setting, as `findServer` takes it. */
export function serverSetting(config: ConfigLike): { command: string; args: string[] } {
  const command = config.get<string>("server.command");
  const args = config.get<string[]>("server.args");
  return {
    command: typeof command === "string" ? command : "",
    args: Array.isArray(args) ? args.filter((a) => typeof a === "string") : ["serve"],
  };
}
