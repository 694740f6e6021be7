// `memory.search` and `memory.impact` results -> quick pick items that know where to go. The server's
// lines are 1-based and paths workspace-relative; a target here keeps them so, and `range0`
// converts once for VS Code.

export interface Target {
  path: string; // relative to the workspace folder (or absolute)
  start: number; // 1-based; 0 = the top of the file
  end: number;
}

export interface Item {
  label: string;
  description?: string;
  detail?: string;
  target?: Target;
}

interface Citation {
  path?: string;
  start_line?: number | null;
  end_line?: number | null;
  current?: { path?: string; start_line?: number | null; end_line?: number | null } | null;
}

interface SearchHit {
  kind?: string;
  type?: string;
  text?: string;
  path?: string | null;
  symbol?: string | null;
  lines?: number[] | null;
  state?: string;
  citations?: Citation[];
}

interface Dependent {
  path: string;
  symbol?: string | null;
  depth?: number;
  confidence?: number;
  lines?: number[];
  via?: string[];
}

function firstLine(text: string | undefined, max = 100): string {
  const line = (text ?? "").split("\n", 1)[0].trim();
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

function where(t: Target): string {
  return t.start ? (t.end > t.start ? `${t.path}:${t.start}-${t.end}` : `${t.path}:${t.start}`) : t.path;
}

/** Where a search hit lives now: a memory's first citation where the code is today, else its path. */
function hitTarget(hit: SearchHit): Target | undefined {
  const c = (hit.citations ?? [])[0];
  const now = c?.current ?? undefined;
  if (now?.path) {
    return { path: now.path, start: now.start_line ?? 0, end: now.end_line ?? now.start_line ?? 0 };
  }
  if (hit.path) {
    const [start, end] = hit.lines ?? [];
    return { path: hit.path, start: start ?? 0, end: end ?? start ?? 0 };
  }
  if (c?.path) {
    return { path: c.path, start: c.start_line ?? 0, end: c.end_line ?? c.start_line ?? 0 };
  }
  return undefined;
}

export function searchItems(result: { results?: SearchHit[] }): Item[] {
  return (result.results ?? []).map((hit) => {
    const target = hitTarget(hit);
    const memory = hit.kind === "memory";
    const label = memory ? `$(book) ${firstLine(hit.text)}` : `$(symbol-${hit.type === "class" ? "class" : "function"}) ${hit.symbol ?? hit.path ?? ""}`;
    const parts = [memory ? hit.type : hit.kind, target ? where(target) : "no code cited"];
    if (memory && hit.state && hit.state !== "valid") {
      parts.push(hit.state);
    }
    return { label, description: parts.filter(Boolean).join(" · "), detail: memory ? undefined : firstLine(hit.text), target };
  });
}

/** A function using the target without a call: reading a method as an attribute (found by name), or
 * handing on, checking against or annotating with a function or class where it is imported. */
interface Read {
  path: string;
  symbol: string | null; // null: the file's module-level code
  lines: number[];
}

export function impactItems(result: {
  dependents?: Dependent[];
  tests?: string[];
  reads?: Read[];
  reads_total?: number;
  reads_kind?: string;
}): Item[] {
  const items: Item[] = (result.dependents ?? []).map((d) => {
    const line = (d.lines ?? [])[0] ?? 0;
    const target = { path: d.path, start: line, end: line };
    const confidence = d.confidence === undefined ? "" : ` · confidence ${d.confidence}`;
    return {
      label: `$(references) ${d.symbol ?? d.path}`,
      description: `${where(target)} · depth ${d.depth ?? 1}${confidence}`,
      detail: d.via && d.via.length > 2 ? `via ${d.via.slice(1, -1).join(" → ")}` : undefined,
      target,
    };
  });
  // the graph has no edge for a read or a use without a call: these come after the dependents, marked
  const how = result.reads_kind === "value" ? "uses it without a call" : "reads it (found by name)";
  for (const r of result.reads ?? []) {
    const target = { path: r.path, start: r.lines[0] ?? 0, end: r.lines[0] ?? 0 };
    items.push({ label: `$(eye) ${r.symbol ?? `${r.path} (module level)`}`, description: `${where(target)} · ${how}`, target });
  }
  const unlisted = (result.reads_total ?? 0) - (result.reads ?? []).length;
  if (unlisted > 0) {  // what the server left out, said as what the listed ones are
    const one = unlisted === 1;
    items.push(result.reads_kind === "value"
      ? { label: `$(eye) ${unlisted} more ${one ? "place uses" : "places use"} it without a call`, description: "not listed" }
      : { label: `$(eye) ${unlisted} more ${one ? "function reads" : "functions read"} it`, description: "not listed (found by name)" });
  }
  for (const test of result.tests ?? []) {
    items.push({ label: `$(beaker) ${test}`, description: "test to run", target: { path: test, start: 0, end: 0 } });
  }
  return items;
}

/** VS Code's 0-based [startLine, endLine] for a target (the top of the file when it has no lines). */
export function range0(t: Target): [number, number] {
  const start = Math.max(0, t.start - 1);
  return [start, Math.max(start, t.end - 1)];
}

/** The impact target for the symbol at the cursor from the server's "Teach a memory" action there,
 * which cites `path::Qualified.Name` when the cursor is in a symbol (else `path:a-b`: the file). */
export function impactTarget(cite: string | undefined, relPath: string): string {
  if (cite && cite.includes("::")) {
    return cite.replace(/:\d+-\d+$/, "");
  }
  return relPath;
}
