// The command palette: one `memoryLsp.<name>` entry per server command `memory.<name>`, each asking
// for what it needs (the selection, an input box, a quick pick of memories) and showing the answer
// (a quick pick that opens a location, a message, or a document). Also the middleware that
// answers the server's "Teach a memory" code action with prompts instead of a draft file.
import * as path from "path";
import { fileURLToPath } from "url";
import * as vscode from "vscode";
import { impactItems, impactTarget, Item, range0, searchItems, Target } from "./results";
import { askTeach, citation, Prompts, taughtMessage, teachRequest } from "./teach";

/** What the palette needs from the language client (a fake in the tests). */
export interface ServerLink {
  execute(command: string, args: Record<string, unknown>): Promise<any>;
  /** Whether the running server lists `command` (undefined: not running). */
  offers(command: string): boolean | undefined;
  /** The server's code actions at a place (to learn the symbol it would cite there). */
  codeActions(uri: vscode.Uri, range: vscode.Range): Promise<{ command?: { command: string; arguments?: unknown[] } }[]>;
}

type Run = (link: ServerLink) => Promise<void>;

interface Memory {
  id: string;
  type: string;
  text: string;
  state: string;
  pinned: boolean;
  needs_review: boolean;
  citations: { path: string; start_line: number | null; end_line: number | null }[];
}

const VERDICTS = ["useful", "wrong", "outdated"];
const DONE: Record<string, string> = { edit: "edited", forget: "forgot", feedback: "recorded your verdict on", approve: "approved",
  reanchor: "re-anchored" };
const EXPORT_FORMATS: [string, string][] = [["markdown", "markdown"], ["json", "json"], ["agents", "markdown"]];

export const prompts: Prompts = {
  input: (o) => Promise.resolve(vscode.window.showInputBox({ title: o.title, prompt: o.prompt, placeHolder: o.placeHolder,
    ignoreFocusOut: true, validateInput: o.validate })),
  pick: (items, o) => Promise.resolve(vscode.window.showQuickPick(items, { title: o.title, placeHolder: o.placeHolder })),
};

/** The workspace folder a document belongs to, its path relative to it, and the `workspace`
 * argument a command needs when it is not the first folder. */
export function placeOf(uri: vscode.Uri): { rel: string; folder?: string; workspace?: string } {
  const folder = vscode.workspace.getWorkspaceFolder(uri);
  if (!folder) {
    return { rel: uri.fsPath };
  }
  const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join("/");
  const first = vscode.workspace.workspaceFolders?.[0];
  const workspace = first && first.uri.fsPath !== folder.uri.fsPath ? folder.uri.fsPath : undefined;
  return { rel, folder: folder.uri.fsPath, workspace };
}

function withWorkspace(args: Record<string, unknown>, workspace?: string): Record<string, unknown> {
  return workspace === undefined ? args : { ...args, workspace };
}

/** What the server's "Teach a memory" action would cite at the cursor: `path::Symbol` or a range. */
async function serverCite(link: ServerLink, editor: vscode.TextEditor): Promise<string | undefined> {
  const at = editor.selection.active;
  const actions = await link.codeActions(editor.document.uri, new vscode.Range(at, at));
  for (const action of actions ?? []) {
    const found = action.command ? teachRequest(action.command.command, action.command.arguments ?? []) : undefined;
    if (found && found.cite.length) {
      return found.cite[0];
    }
  }
  return undefined;
}

export async function openTarget(target: Target, folder?: string): Promise<void> {
  const base = folder ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  const file = path.isAbsolute(target.path) ? target.path : path.join(base, target.path);
  const [start, end] = range0(target);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const editor = await vscode.window.showTextDocument(document);
  const range = new vscode.Range(new vscode.Position(start, 0), new vscode.Position(end, 0));
  editor.selection = new vscode.Selection(range.start, range.start);
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

async function pickAndOpen(items: Item[], title: string, empty: string, folder?: string): Promise<void> {
  if (!items.length) {
    void vscode.window.showInformationMessage(`memory-lsp: ${empty}`);
    return;
  }
  const picked = await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true });
  if (picked?.target) {
    await openTarget(picked.target, folder);
  }
}

async function showDocument(content: string, language: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ content, language });
  await vscode.window.showTextDocument(document, { preview: true });
}

function showJson(result: unknown): Promise<void> {
  return showDocument(JSON.stringify(result, null, 2) + "\n", "json");
}

function say(line: string): void {
  void vscode.window.showInformationMessage(line);
}

/** A memory chosen from the list (`prefer` sorts the fitting ones first); undefined if cancelled. */
async function pickMemory(link: ServerLink, title: string, prefer: (m: Memory) => boolean = () => false): Promise<Memory | undefined> {
  const { memories } = (await link.execute("memory.memories", {})) as { memories: Memory[] };
  return pickFrom(memories, title, prefer);
}

async function pickFrom(memories: Memory[], title: string, prefer: (m: Memory) => boolean = () => false): Promise<Memory | undefined> {
  if (!memories.length) {
    say("memory-lsp: no memories yet (Memory: Teach a memory about the selection)");
    return undefined;
  }
  const ordered = [...memories.filter(prefer), ...memories.filter((m) => !prefer(m))];
  const items = ordered.map((m) => ({
    label: m.text.split("\n", 1)[0],
    description: [m.type, m.state !== "valid" ? m.state : "", m.pinned ? "pinned" : "", m.needs_review ? "needs review" : ""]
      .filter(Boolean).join(" · "),
    detail: m.citations.map((c) => (c.start_line ? `${c.path}:${c.start_line}-${c.end_line ?? c.start_line}` : c.path)).join(", ") || "global",
    memory: m,
  }));
  const picked = await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true });
  return picked?.memory;
}

async function input(title: string, prompt: string, value = ""): Promise<string | undefined> {
  const text = await vscode.window.showInputBox({ title, prompt, value, ignoreFocusOut: true });
  return text === undefined || !text.trim() ? undefined : text.trim();
}

/** Teach: the selection's citation (or the symbol at the cursor's, as the server would cite it). */
export async function teach(link: ServerLink, ask: Prompts = prompts): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  let cite: string[] = [];
  let workspace: string | undefined;
  if (editor) {
    const place = placeOf(editor.document.uri);
    workspace = place.workspace;
    const s = editor.selection;
    cite = [s.isEmpty ? (await serverCite(link, editor)) ?? citation(place.rel, s.start, s.end) : citation(place.rel, s.start, s.end)];
  }
  await teachWith(link, { cite, type: "gotcha", workspace }, ask);
}

async function teachWith(link: ServerLink, request: { cite: string[]; type: string; workspace?: string }, ask: Prompts): Promise<void> {
  const args = await askTeach(ask, request.cite, request.type, request.workspace);
  if (args === undefined) {
    return;
  }
  const result = await link.execute("memory.teach", { ...args });
  for (const warning of result.warnings ?? []) {
    void vscode.window.showWarningMessage(`memory-lsp: ${warning}`);
  }
  say(taughtMessage(result));
}

/** Middleware for the server's commands run by VS Code (a code action, a lens): the "Teach a
 * memory" action prompts here; a lens's impact or memories answer is shown as a quick pick (VS
 * Code would drop it). The palette's own requests do not pass here. */
export function executeCommandMiddleware(link: () => ServerLink | undefined, ask: Prompts = prompts) {
  return async (command: string, args: any[], next: (command: string, args: any[]) => any): Promise<any> => {
    const request = teachRequest(command, args);
    const current = link();
    if (request !== undefined && current !== undefined) {
      try {
        await teachWith(current, request, ask);
      } catch (error) { // a refusal (a secret in the text, a bad citation) is one message
        void vscode.window.showErrorMessage(`memory-lsp: ${error instanceof Error ? error.message : String(error)}`);
      }
      return undefined;
    }
    const result = await next(command, args);
    const named = typeof args[0]?.workspace === "string" ? args[0].workspace as string : undefined;
    const workspace = named?.startsWith("file:") ? fileURLToPath(named) : named; // a folder path or URI
    if (command === "memory.impact" && result) {
      await pickAndOpen(impactItems(result), `What depends on ${result.target}`, `nothing depends on ${result.target}`, workspace);
    } else if (command === "memory.memories" && result) {
      await openCited(await pickFrom(result.memories ?? [], "Memories here"), workspace);
    }
    return result;
  };
}

async function search(link: ServerLink): Promise<void> {
  const query = await input("Search memories and code", "words, an identifier or a question");
  if (query === undefined) {
    return;
  }
  const editor = vscode.window.activeTextEditor;
  const place = editor ? placeOf(editor.document.uri) : undefined;
  const near = place && place.folder ? [place.rel] : [];
  const result = await link.execute("memory.search", withWorkspace({ query, file: near }, place?.workspace));
  const note = result.note ? ` (${result.note})` : "";
  await pickAndOpen(searchItems(result), `Search: ${query}${note}`, `nothing found for “${query}”`, place?.folder);
}

async function impact(link: ServerLink): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const place = editor ? placeOf(editor.document.uri) : undefined;
  const suggested = editor && place ? impactTarget(await serverCite(link, editor), place.rel) : "";
  const target = await input("Impact", "a path, or path::Qualified.Name", suggested);
  if (target === undefined) {
    return;
  }
  const result = await link.execute("memory.impact", withWorkspace({ target }, place?.workspace));
  await pickAndOpen(impactItems(result), `What depends on ${result.target ?? target}`, `nothing depends on ${target}`, place?.folder);
}

async function openMemory(link: ServerLink): Promise<void> {
  await openCited(await pickMemory(link, "Memories"));
}

async function openCited(m: Memory | undefined, folder?: string): Promise<void> {
  const c = m?.citations[0];
  if (c) {
    await openTarget({ path: c.path, start: c.start_line ?? 0, end: c.end_line ?? c.start_line ?? 0 }, folder);
  }
}

function aboutMemory(verb: string, title: string, prefer: (m: Memory) => boolean,
                     more: (m: Memory) => Promise<Record<string, unknown> | undefined> = async () => ({})): Run {
  return async (link) => {
    const m = await pickMemory(link, title, prefer);
    const extra = m && (await more(m));
    if (m && extra) {
      await link.execute(`memory.${verb}`, { id: m.id, ...extra });
      const done = verb === "pin" ? (m.pinned ? "unpinned" : "pinned") : DONE[verb] ?? verb;
      say(`memory-lsp: ${done} “${m.text.split("\n", 1)[0]}”`);
    }
  };
}

function currentFile(): { rel: string; workspace?: string } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    say("memory-lsp: open a file first");
    return undefined;
  }
  return placeOf(editor.document.uri);
}

// palette name -> what it does; `memoryLsp.<name>` runs `memory.<name>` on the server
export const PALETTE: Record<string, Run> = {
  teach: (link) => teach(link),
  capture: async (link) => {
    const text = await input("Capture memories from text", "a preference, correction or constraint in plain words");
    if (text !== undefined) {
      const { captured } = (await link.execute("memory.capture", { text })) as { captured: { id?: string; created?: boolean }[] };
      const stored = captured.filter((c) => c.id !== undefined && c.created).length;
      say(`memory-lsp: ${captured.length} memories found in the text, ${stored} new`);
    }
  },
  memories: openMemory,
  edit: aboutMemory("edit", "Edit which memory?", () => false, async (m) => {
    const text = await input("Edit the memory", "the new text", m.text);
    return text === undefined ? undefined : { text };
  }),
  forget: aboutMemory("forget", "Forget which memory?", () => false, async () => {
    const reason = await input("Forget the memory", "why it no longer holds");
    return reason === undefined ? undefined : { reason };
  }),
  feedback: aboutMemory("feedback", "Feedback on which memory?", () => false, async () => {
    const verdict = await vscode.window.showQuickPick(VERDICTS, { title: "Verdict" });
    return verdict === undefined ? undefined : { verdict };
  }),
  approve: aboutMemory("approve", "Approve which memory?", (m) => m.needs_review),
  pin: aboutMemory("pin", "Pin or unpin which memory?", () => false, async (m) => ({ off: m.pinned })),
  reanchor: aboutMemory("reanchor", "Re-anchor which memory?", (m) => m.state === "drifted"),
  import: async (link) => {
    const result = await link.execute("memory.import", {});
    say(`memory-lsp: read ${result.files.length} rules files: ${result.created.length} new memories, ${result.unchanged} unchanged, `
      + `${result.retired.length} retired${result.refused.length ? `, ${result.refused.length} refused` : ""}`);
  },
  export: async (link) => {
    const format = await vscode.window.showQuickPick(EXPORT_FORMATS.map(([f]) => f), { title: "Export memories as" });
    if (format !== undefined) {
      const result = await link.execute("memory.export", { format });
      await showDocument(result.text, EXPORT_FORMATS.find(([f]) => f === format)![1]);
    }
  },
  search,
  context: async (link) => {
    const place = currentFile();
    if (place) {
      const result = await link.execute("memory.context", withWorkspace({ file: [place.rel] }, place.workspace));
      await showDocument(result.text, "markdown");
    }
  },
  expand: async (link) => {
    const place = currentFile();
    if (place) {
      await showJson(await link.execute("memory.expand", withWorkspace({ file: place.rel }, place.workspace)));
    }
  },
  impact,
  stats: async (link) => showJson(await link.execute("memory.stats", {})),
  doctor: async (link) => {
    const result = await link.execute("memory.doctor", {});
    say(`memory-lsp: the index is ${result.healthy ? "healthy" : "NOT healthy"}`);
    await showJson(result);
  },
  reindex: async (link) => {
    const result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "memory-lsp: indexing" },
      () => link.execute("memory.reindex", {}));
    say(`memory-lsp: ${result.files} files, ${result.parsed} parsed, ${result.unchanged} unchanged in ${result.seconds} s`);
  },
  consolidate: async (link) => showJson(await link.execute("memory.consolidate", {})),
};

/** Run a palette entry: say so plainly when the server is not running or does not offer it. */
export async function runEntry(name: string, link: ServerLink | undefined): Promise<void> {
  const command = `memory.${name}`;
  if (link === undefined || link.offers(command) === undefined) {
    void vscode.window.showWarningMessage("memory-lsp: the server is not running (Memory: Restart the server)");
    return;
  }
  if (!link.offers(command)) {
    void vscode.window.showInformationMessage(`memory-lsp: this server does not offer ${command} yet (update memory-lsp)`);
    return;
  }
  try {
    await PALETTE[name](link);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window.showErrorMessage(`memory-lsp: ${message}`);
  }
}
