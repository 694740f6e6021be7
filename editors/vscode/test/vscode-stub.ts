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
  withProgress<T>(_options: unknown, task: () => Promise<T>): Promise<T> {
    return task();
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
