// The part of the `vscode` API the extension's modules touch, for tests without VS Code: prompts
// answer from a queue the test fills, and everything shown is recorded.
import * as path from "path";

export const recorded = {
  messages: [] as { level: string; text: string }[],
  inputs: [] as Record<string, unknown>[],
  picks: [] as { items: unknown[]; options: Record<string, unknown> }[],
  opened: [] as { file?: string; content?: string; language?: string; selection?: Selection }[],
};
// the next input box or quick pick answers with the first (a function: called with the options or items)
export const answers: unknown[] = [];

export function reset(): void {
  recorded.messages.length = 0;
  recorded.inputs.length = 0;
  recorded.picks.length = 0;
  recorded.opened.length = 0;
  answers.length = 0;
  window.activeTextEditor = undefined;
  workspace.workspaceFolders = undefined;
}

export class Position {
  constructor(readonly line: number, readonly character: number) {}
  isEqual(other: Position): boolean {
    return this.line === other.line && this.character === other.character;
  }
}

export class Range {
  constructor(readonly start: Position, readonly end: Position) {}
  get isEmpty(): boolean {
    return this.start.isEqual(this.end);
  }
}

export class Selection extends Range {
  constructor(readonly anchor: Position, readonly active: Position) {
    super(anchor, active);
  }
}

export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(p: string): Uri {
    return new Uri(path.resolve(p));
  }
  toString(): string {
    return `file://${this.fsPath}`;
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TextEditorRevealType { Default, InCenter, InCenterIfOutsideViewport, AtTop }
export enum ProgressLocation { SourceControl = 1, Window = 10, Notification = 15 }
export enum StatusBarAlignment { Left = 1, Right = 2 }

function answer(): Promise<unknown> {
  return Promise.resolve(answers.length ? answers.shift() : undefined);
}

class Editor {
  selection: Selection;
  constructor(readonly document: { uri: Uri; fileName: string }, selection?: Selection) {
    this.selection = selection ?? new Selection(new Position(0, 0), new Position(0, 0));
  }
  revealRange(): void {}
}

export function editorAt(file: string, selection?: Selection): Editor {
  return new Editor({ uri: Uri.file(file), fileName: file }, selection);
}

export const window = {
  activeTextEditor: undefined as Editor | undefined,
  showInputBox(options: Record<string, unknown>): Promise<unknown> {
    recorded.inputs.push(options);
    return answer().then((a) => (typeof a === "function" ? a(options) : a));
  },
  showQuickPick(items: unknown[], options: Record<string, unknown> = {}): Promise<unknown> {
    recorded.picks.push({ items, options });
    return answer().then((a) => (typeof a === "function" ? a(items) : a));
  },
  showInformationMessage(text: string): Promise<undefined> {
    recorded.messages.push({ level: "info", text });
    return Promise.resolve(undefined);
  },
  showWarningMessage(text: string): Promise<undefined> {
    recorded.messages.push({ level: "warning", text });
    return Promise.resolve(undefined);
  },
  showErrorMessage(text: string): Promise<undefined> {
    recorded.messages.push({ level: "error", text });
    return Promise.resolve(undefined);
  },
  async showTextDocument(document: { file?: string; content?: string; language?: string }): Promise<Editor> {
    const editor = editorAt(document.file ?? "untitled");
    const entry = { ...document, selection: undefined as Selection | undefined };
    recorded.opened.push(entry);
    return new Proxy(editor, {
      set(target, key, value) {
        if (key === "selection") {
          entry.selection = value;
        }
        return Reflect.set(target, key, value);
      },
    });
  },
  withProgress<T>(_options: unknown, task: (progress: unknown, token: unknown) => Promise<T>): Promise<T> {
    return task({ report() {} }, { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) });
  },
};

export const workspace = {
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,
  getWorkspaceFolder(uri: Uri) {
    return (workspace.workspaceFolders ?? []).find((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(f.uri.fsPath + path.sep));
  },
  async openTextDocument(what: Uri | { content: string; language: string }) {
    return what instanceof Uri ? { file: what.fsPath } : { content: what.content, language: what.language };
  },
};

export function setFolders(...paths: string[]): void {
  workspace.workspaceFolders = paths.map((p, index) => ({ uri: Uri.file(p), name: path.basename(p), index }));
}

// -- enough of the rest for vscode-languageclient to load and run (extension.test.ts) ---------------
export const version = "1.82.0"; // the client checks it against its engine
export const env = { appName: "VS Code (stub)", language: "en", uriScheme: "vscode" }; // initialize's clientInfo, locale

export const configuration: Record<string, unknown> = {}; // "memoryLsp.server.command" -> value (user level)

function configurationFor(section: string) {
  const prefix = section ? `${section}.` : "";
  const own = () => Object.entries(configuration).filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [k.slice(prefix.length), v] as const);
  return {
    get<T>(key: string, fallback?: T): T | undefined {
      const exact = own().find(([k]) => k === key);
      if (exact) {
        return exact[1] as T;
      }
      const nested = own().filter(([k]) => k.startsWith(`${key}.`)).map(([k, v]) => [k.slice(key.length + 1), v]);
      return nested.length ? Object.fromEntries(nested) as T : fallback;
    },
    inspect<T>(key: string) {
      return { key, globalValue: own().find(([k]) => k === key)?.[1] as T | undefined };
    },
    has: (key: string) => own().some(([k]) => k === key || k.startsWith(`${key}.`)),
    update: async () => undefined,
  };
}

export const registered = new Map<string, (...args: any[]) => any>();
export const commands = {
  registerCommand(name: string, run: (...args: any[]) => any) {
    if (registered.has(name)) {
      throw new Error(`command '${name}' already exists`); // as VS Code does
    }
    registered.set(name, run);
    return { dispose: () => registered.delete(name) };
  },
  executeCommand: async (name: string, ...args: unknown[]) => registered.get(name)?.(...args),
};

export class StatusItem {
  readonly history: string[] = []; // every text it showed
  private shown = "";
  get text(): string {
    return this.shown;
  }
  set text(value: string) {
    this.shown = value;
    this.history.push(value);
  }
  tooltip: unknown = "";
  command: unknown;
  backgroundColor: unknown;
  show(): void {}
  hide(): void {}
  dispose(): void {}
}
export const statusItems: StatusItem[] = [];
export const output: string[] = [];

Object.assign(window, {
  createStatusBarItem: () => {
    const item = new StatusItem();
    statusItems.push(item);
    return item;
  },
  createOutputChannel: (name: string) => ({
    name, append: (s: string) => output.push(s), appendLine: (s: string) => output.push(s), show() {}, hide() {}, clear() {},
    replace() {}, dispose() {},
  }),
});
Object.assign(workspace, { getConfiguration: configurationFor, textDocuments: [], notebookDocuments: [] });

// anything else: a do-nothing value that is callable, constructible, iterable (empty) and has
// every property, so that event subscriptions and provider registrations just work
const inert: any = new Proxy(function inert() {}, {
  get(target, key) {
    if (key === Symbol.iterator) {
      return function* () {};
    }
    if (key === "prototype") {
      return (target as any).prototype;
    }
    if (key === Symbol.toPrimitive || key === "then" || key === "toJSON") {
      return undefined;
    }
    return inert;
  },
  apply: () => inert,
  construct: () => inert,
});

function withInert<T extends object>(object: T): T {
  return new Proxy(object, { get: (target, key) => (key in target ? (target as any)[key] : inert) });
}
Object.assign(exports, { window: withInert(window), workspace: withInert(workspace), env: withInert(env) });
module.exports = new Proxy(exports, { get: (target, key) => (key in target ? target[key as string] : inert) });
