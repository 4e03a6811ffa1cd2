// The status bar item: server state at a glance; clicking it opens the view.
import * as vscode from "vscode";
import type { StatusParams } from "./protocol";
import { presentStatus, type ClientState, type RunProgress } from "./statusModel";

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("faultlens.status", vscode.StatusBarAlignment.Left, 50);
  private last: StatusParams | ClientState = "starting";
  private progress: RunProgress | undefined;
  /** Recent texts, oldest first: lets tests see states that pass quickly (a run's progress). */
  readonly history: string[] = [];

  constructor() {
    this.item.name = "faultlens";
    this.item.command = "faultlens.showView";
    this.show("starting");
    this.item.show();
  }

  /** A run's progress report; undefined when the run ends. */
  showProgress(progress: RunProgress | undefined): void {
    this.progress = progress;
    this.show(this.last);
  }

  show(s: StatusParams | ClientState): void {
    this.last = s;
    if (typeof s === "string" || s.state !== "running") this.progress = undefined;
    const p = presentStatus(s, vscode.workspace.isTrusted, this.progress);
    this.item.text = p.text;
    if (this.history[this.history.length - 1] !== p.text) this.history.push(p.text);
    if (this.history.length > 200) this.history.shift();
    this.item.tooltip = p.tooltip;
    // Screen readers get the words, not the icon names.
    this.item.accessibilityInformation = { label: p.tooltip, role: "button" };
    this.item.backgroundColor =
      p.severity === "error"
        ? new vscode.ThemeColor("statusBarItem.errorBackground")
        : p.severity === "warning"
          ? new vscode.ThemeColor("statusBarItem.warningBackground")
          : undefined;
  }

  current(): StatusParams | ClientState {
    return this.last;
  }

  text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.item.dispose();
  }
}
