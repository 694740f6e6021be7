// Teaching from VS Code: the citation of a selection, and the prompts (text, then type) that turn a
// citation into `memory.teach` arguments. The prompts are passed in, so this has no `vscode` import.

// memory_lsp/memory/model.py TYPES, in the server's order (tests/test_vscode_extension.py checks)
export const TYPES = [
  "policy", "requirement", "gotcha", "error_pattern", "dead_end", "workflow_recipe", "module_insight",
  "decision", "preference", "pattern", "causal_dependency", "fact",
];

export interface Point {
  line: number; // 0-based, as VS Code counts
  character: number;
}

/** `path:first-last` (1-based) for a selection, as the server's own code action cites one: a
 * selection that ends at the start of a line does not take that line. */
export function citation(relPath: string, start: Point, end: Point): string {
  const first = start.line + 1;
  const last = Math.max(first, end.line + (end.character ? 1 : 0));
  return `${relPath}:${first}-${last}`;
}

export interface Prompts {
  input(options: { title: string; prompt: string; placeHolder?: string; validate(value: string): string | undefined }):
    Promise<string | undefined>;
  pick(items: { label: string; description?: string }[], options: { title: string; placeHolder: string }):
    Promise<{ label: string } | undefined>;
}

export interface TeachArguments {
  text: string;
  type: string;
  cite: string[];
  workspace?: string;
}

/** Ask for the text, then the type (`suggested` first); undefined when the user cancels either. */
export async function askTeach(prompts: Prompts, cite: string[], suggested = "gotcha", workspace?: string):
  Promise<TeachArguments | undefined> {
  const about = cite.length ? cite.join(", ") : "the project (no citation)";
  const text = await prompts.input({
    title: `Teach a memory about ${about}`,
    prompt: "What should the next person (or agent) know here?",
    placeHolder: "e.g. parse() splits on whitespace only: quoted arguments need shlex",
    validate: (value) => (value.trim() ? undefined : "the memory needs some text"),
  });
  if (text === undefined || !text.trim()) {
    return undefined;
  }
  const order = [suggested, ...TYPES.filter((t) => t !== suggested)];
  const picked = await prompts.pick(order.map((t) => ({ label: t, description: t === suggested ? "suggested" : undefined })),
    { title: "Memory type", placeHolder: "what kind of memory is this?" });
  if (picked === undefined) {
    return undefined;
  }
  const out: TeachArguments = { text: text.trim(), type: picked.label, cite };
  if (workspace !== undefined) {
    out.workspace = workspace;
  }
  return out;
}

/** The citations and type the server put in a "Teach a memory" action (`memory.teachDraft`, or
 * `memory.teach` without text); undefined when the arguments are not that. */
export function teachRequest(command: string, args: unknown[]): { cite: string[]; type: string; workspace?: string } | undefined {
  const first = (args.length === 0 ? {} : args[0]) as Record<string, unknown> | null;
  if (args.length > 1 || typeof first !== "object" || first === null || Array.isArray(first)) {
    return undefined;
  }
  if (command !== "memory.teachDraft" && !(command === "memory.teach" && typeof first.text !== "string")) {
    return undefined;
  }
  const cite = Array.isArray(first.cite) ? first.cite.filter((c): c is string => typeof c === "string") : [];
  const type = typeof first.type === "string" && TYPES.includes(first.type) ? first.type : "gotcha";
  const workspace = typeof first.workspace === "string" ? first.workspace : undefined;
  return workspace === undefined ? { cite, type } : { cite, type, workspace };
}

/** The one line the user reads after `memory.teach` answered. */
export function taughtMessage(result: { id?: string; created?: boolean; warnings?: string[]; similar?: unknown[] }): string {
  const id = result.id ?? "?";
  let line = result.created === false ? `memory-lsp: already known as memory ${id}` : `memory-lsp: stored memory ${id}`;
  if (result.similar && result.similar.length) {
    line += ` (${result.similar.length} similar already known)`;
  }
  return line;
}
