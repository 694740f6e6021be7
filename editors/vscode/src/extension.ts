// The extension: starts `memory-lsp serve` with vscode-languageclient, passes the settings as
// initializationOptions, restarts on "Memory: Restart the server" and when a memoryLsp setting
// changes, puts every memory.* command in the palette (palette.ts) and shows the state and the
// indexing progress in the status bar (status.ts).
import * as vscode from "vscode";
import {
  CodeActionRequest, Disposable, ExecuteCommandRequest, LanguageClient, LanguageClientOptions, NotificationHandler,
  ProgressType, ServerOptions, State, WorkDoneProgress,
} from "vscode-languageclient/node";
import { executeCommandMiddleware, PALETTE, runEntry, ServerLink } from "./palette";
import { findServer, searched } from "./server";
import { serverSetting, serverSettings } from "./settings";
import { ProgressValue, Status } from "./status";

const SECTION = "memoryLsp";

/** A LanguageClient that also tells the status bar about work-done progress: the client's own
 * progress UI subscribes per token through `onProgress`, so every token passes here. */
class MemoryClient extends LanguageClient {
  listener?: (token: string | number, value: ProgressValue) => void;

  onProgress<P>(type: ProgressType<P>, token: string | number, handler: NotificationHandler<P>): Disposable {
    return super.onProgress(type, token, (value: P) => {
      if (type === (WorkDoneProgress.type as unknown)) {
        this.listener?.(token, value as unknown as ProgressValue);
      }
      handler(value);
    });
  }
}

let client: MemoryClient | undefined;
let link: ServerLink | undefined;

function linkTo(c: MemoryClient): ServerLink {
  return {
    execute: (command, args) => c.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] }),
    offers: (command) => {
      if (c.state !== State.Running) {
        return undefined;
      }
      return (c.initializeResult?.capabilities.executeCommandProvider?.commands ?? []).includes(command);
    },
    codeActions: async (uri, range) => {
      const answer = await c.sendRequest(CodeActionRequest.type, {
        textDocument: { uri: c.code2ProtocolConverter.asUri(uri) },
        range: c.code2ProtocolConverter.asRange(range),
        context: { diagnostics: [] },
      });
      // a bare Command or a CodeAction carrying one
      return (answer ?? []).map((a) => (typeof a.command === "string" ? { command: a as { command: string; arguments?: unknown[] } } : a as never));
    },
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("memory-lsp");
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  item.command = "memoryLsp.showOutput";
  const status = new Status();
  const show = () => {
    const view = status.view();
    item.text = view.text;
    item.tooltip = view.tooltip;
    item.backgroundColor = view.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    item.show();
  };
  show();

  const start = async () => {
    const config = vscode.workspace.getConfiguration(SECTION);
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    if (folders.length === 0) { // the server keeps a folder's memory: nothing to do until one is opened
      status.setState("stopped", "no folder open");
      show();
      return;
    }
    const setting = serverSetting(config);
    const server = findServer(setting, folders, process.env.PATH);
    if (server === undefined) {
      status.setState("no-server", `looked in ${searched(setting, folders)}`);
      show();
      // not awaited: the message stays until the user closes it, activation and restarts go on
      void Promise.resolve(vscode.window.showErrorMessage(
        `memory-lsp: no memory-lsp found (looked in ${searched(setting, folders)}). `
        + "Install it (pip install memory-lsp) or set memoryLsp.server.command.", "Open Settings")).then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand("workbench.action.openSettings", "memoryLsp.server");
        }
      });
      return;
    }
    output.appendLine(`memory-lsp: starting ${server.command} ${server.args.join(" ")} (from ${server.found})`);
    const env = { ...process.env, ...(config.get<Record<string, string>>("server.env") ?? {}) };
    const serverOptions: ServerOptions = { command: server.command, args: server.args, options: { env, cwd: folders[0] } };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: "file" }],
      outputChannel: output,
      initializationOptions: serverSettings(config),
      middleware: {
        executeCommand: executeCommandMiddleware(() => link),
        workspace: {
          // the server asks for section "memory": the same tree as initializationOptions
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((it, i) => (it.section === "memory" ? serverSettings(vscode.workspace.getConfiguration(SECTION)) : answers[i]));
          },
        },
      },
    };
    const c = new MemoryClient(SECTION, "memory-lsp", serverOptions, clientOptions);
    c.listener = (token, value) => {
      status.progress(token, value);
      show();
    };
    c.onDidChangeState((e) => {
      status.setState(e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped", server.found);
      show();
    });
    client = c;
    link = linkTo(c);
    try {
      await c.start();
    } catch (error) {
      status.setState("failed", error instanceof Error ? error.message : String(error));
      show();
    }
  };

  const stop = async () => {
    const c = client;
    client = undefined;
    link = undefined;
    if (c !== undefined) {
      try {
        await c.stop(2000);
      } catch (error) {
        output.appendLine(`memory-lsp: stopping the server: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };

  let restarting = Promise.resolve();
  const restart = () => { // one after the other: several settings may change at once
    restarting = restarting.then(async () => {
      status.setState("starting");
      show();
      await stop();
      await start();
    });
    return restarting;
  };

  context.subscriptions.push(
    output, item,
    vscode.commands.registerCommand("memoryLsp.restart", restart),
    vscode.commands.registerCommand("memoryLsp.showOutput", () => output.show(true)),
    ...Object.keys(PALETTE).map((name) => vscode.commands.registerCommand(`memoryLsp.${name}`, () => runEntry(name, link))),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (client === undefined) { // the first folder of a window that had none
        void restart();
      }
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration(SECTION)) {
        void restart();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  if (client !== undefined) {
    await client.stop(2000);
  }
}
