// Which `memory-lsp` to run: the `memoryLsp.server.command` setting, else the workspace's own
// virtualenv (.venv, then venv), else PATH. No `vscode` import: tested with real folders.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface ServerSetting {
  command: string; // "" = find it
  args: string[];
}

export interface ServerCommand {
  command: string;
  args: string[];
  found: string; // where it came from, for the output channel and the "not found" message
}

const VENVS = [".venv", "venv"];

function binary(platform: NodeJS.Platform): { dir: string; name: string } {
  return platform === "win32" ? { dir: "Scripts", name: "memory-lsp.exe" } : { dir: "bin", name: "memory-lsp" };
}

export function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~` in a configured path. */
export function expand(value: string, folder: string | undefined): string {
  let out = value.replace(/\$\{userHome\}/g, os.homedir());
  if (folder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (out === "~" || out.startsWith("~/")) {
    out = path.join(os.homedir(), out.slice(1));
  }
  return out;
}

/** The first executable `name` on `envPath` (PATH's syntax for this platform). */
export function onPath(name: string, envPath: string | undefined, platform: NodeJS.Platform = process.platform): string | undefined {
  const separator = platform === "win32" ? ";" : ":";
  for (const dir of (envPath ?? "").split(separator)) {
    if (dir && isExecutable(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

/** The server to start for `folders` (workspace folder paths, the first one wins), or undefined. */
export function findServer(setting: ServerSetting, folders: string[], envPath: string | undefined,
                           platform: NodeJS.Platform = process.platform): ServerCommand | undefined {
  const args = setting.args.length ? setting.args : ["serve"];
  const configured = setting.command.trim();
  if (configured) {
    const command = expand(configured, folders[0]);
    // a bare name is looked up on PATH by the OS; a relative path is taken from the first folder
    if (!command.includes("/") && !command.includes("\\")) {
      const hit = onPath(command, envPath, platform);
      return hit ? { command: hit, args, found: "memoryLsp.server.command (on PATH)" } : undefined;
    }
    const full = path.isAbsolute(command) || folders.length === 0 ? command : path.join(folders[0], command);
    return isExecutable(full) ? { command: full, args, found: "memoryLsp.server.command" } : undefined;
  }
  const { dir, name } = binary(platform);
  for (const folder of folders) {
    for (const venv of VENVS) {
      const candidate = path.join(folder, venv, dir, name);
      if (isExecutable(candidate)) {
        return { command: candidate, args, found: `the workspace's ${venv}` };
      }
    }
  }
  const hit = onPath(name, envPath, platform);
  return hit ? { command: hit, args, found: "PATH" } : undefined;
}

/** Where `findServer` looked, for the message when it found nothing. */
export function searched(setting: ServerSetting, folders: string[]): string {
  if (setting.command.trim()) {
    return `memoryLsp.server.command = ${JSON.stringify(setting.command)}`;
  }
  const places = folders.flatMap((f) => VENVS.map((v) => path.join(f, v, "bin", "memory-lsp")));
  return [...places, "PATH"].join(", ");
}
