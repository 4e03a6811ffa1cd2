// The status bar item: server state at a glance; clicking it opens the view.
import * as vscode from "vscode";
import type { StatusParams } from "./protocol";
import { presentStatus, type ClientState } from "./statusModel";

export class StatusItem implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("faultlens.status", vscode.StatusBarAlignment.Left, 50);
  private last: StatusParams | ClientState = "starting";

  constructor() {
    this.item.name = "faultlens";
    this.item.command = "faultlens.showView";
    this.show("starting");
    this.item.show();
  }

  show(s: StatusParams | ClientState): void {
    this.last = s;
    const p = presentStatus(s, vscode.workspace.isTrusted);
    this.item.text = p.text;
    this.item.tooltip = p.tooltip;
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
