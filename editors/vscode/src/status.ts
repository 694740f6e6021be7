// The status bar item: the client's state and the server's indexing progress ($/progress work-done
// notifications, one token per workspace folder). `Status` is plain state -> text; extension.ts
// binds it to a `vscode.StatusBarItem`.

export type ClientState = "starting" | "running" | "stopped" | "failed" | "no-server";

// the values of a $/progress work-done notification (LSP WorkDoneProgressBegin/Report/End)
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

interface Job {
  title: string;
  message?: string;
  percentage?: number;
}

export interface View {
  text: string;
  tooltip: string;
  error: boolean;
}

export class Status {
  private state: ClientState = "starting";
  private detail = "";
  private readonly jobs = new Map<string | number, Job>();
  private lastEnd = "";

  setState(state: ClientState, detail = ""): void {
    this.state = state;
    this.detail = detail;
    if (state !== "running") {
      this.jobs.clear(); // a stopped server reports no more progress
    }
  }

  progress(token: string | number, value: ProgressValue): void {
    if (value.kind === "begin") {
      this.jobs.set(token, { title: value.title ?? "Indexing", message: value.message, percentage: value.percentage });
    } else if (value.kind === "report") {
      const job = this.jobs.get(token) ?? { title: "Indexing" };
      this.jobs.set(token, { ...job, message: value.message ?? job.message, percentage: value.percentage ?? job.percentage });
    } else {
      const job = this.jobs.get(token);
      this.jobs.delete(token);
      this.lastEnd = value.message && value.message !== "done" ? `${job?.title ?? "Indexing"}: ${value.message}` : "";
    }
  }

  view(): View {
    if (this.state === "starting") {
      return { text: "$(sync~spin) memory", tooltip: "memory-lsp: starting the server", error: false };
    }
    if (this.state === "no-server") {
      return { text: "$(error) memory", tooltip: `memory-lsp: no server found (${this.detail}). Set memoryLsp.server.command.`, error: true };
    }
    if (this.state === "failed") {
      return { text: "$(error) memory", tooltip: `memory-lsp: the server failed${this.detail ? `: ${this.detail}` : ""}. Run "Memory: Restart the server".`, error: true };
    }
    if (this.state === "stopped") {
      return { text: "$(circle-slash) memory", tooltip: `memory-lsp: the server is stopped${this.detail ? ` (${this.detail})` : ""}`, error: false };
    }
    const [first] = this.jobs.values();
    if (first !== undefined) {
      const percent = first.percentage === undefined ? "" : ` ${Math.round(first.percentage)}%`;
      const more = this.jobs.size > 1 ? ` (+${this.jobs.size - 1})` : "";
      const tooltip = [...this.jobs.values()].map((j) => `${j.title}${j.message ? `: ${j.message}` : ""}`).join("\n");
      return { text: `$(sync~spin) memory${percent}${more}`, tooltip: `memory-lsp: ${tooltip}`, error: false };
    }
    if (this.lastEnd.includes("failed")) {
      return { text: "$(warning) memory", tooltip: `memory-lsp: ${this.lastEnd}`, error: true };
    }
    return { text: "$(book) memory", tooltip: `memory-lsp: ready${this.detail ? ` (${this.detail})` : ""}`, error: false };
  }
}
