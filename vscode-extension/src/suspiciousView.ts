// The Suspicious Lines tree view: ranked lines grouped by file or flat;
// clicking a line opens it. The tree's content comes from treeModel.ts.
import * as fs from "node:fs";
import * as vscode from "vscode";
import type { ScoresParams } from "./protocol";
import { buildTree, uriToPath, type TreeNode } from "./treeModel";

export class SuspiciousLinesProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private scores: ScoresParams | undefined;
  private roots: TreeNode[] = [];

  constructor(private groupByFile: boolean) {}

  setScores(scores: ScoresParams | undefined): void {
    this.scores = scores;
    this.rebuild();
  }

  setGroupByFile(groupByFile: boolean): void {
    this.groupByFile = groupByFile;
    this.rebuild();
  }

  isGroupedByFile(): boolean {
    return this.groupByFile;
  }

  /** The current top-level nodes (with children); for tests and the status bar. */
  snapshot(): TreeNode[] {
    return this.roots;
  }

  rebuild(): void {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    this.roots = buildTree(this.scores, { groupByFile: this.groupByFile, workspaceRoot: root, lineText: lineTextReader() });
    this.changed.fire(undefined);
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (node === undefined) return this.roots;
    return node.kind === "file" ? node.children : [];
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    if (node.kind === "file") {
      const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.Expanded);
      item.resourceUri = vscode.Uri.parse(node.uri);
      item.description = node.description;
      item.iconPath = vscode.ThemeIcon.File;
      item.contextValue = "faultlens.file";
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = node.stale
      ? new vscode.ThemeIcon("history", new vscode.ThemeColor("disabledForeground"))
      : new vscode.ThemeIcon("debug-stackframe-dot");
    item.contextValue = node.stale ? "faultlens.staleLine" : "faultlens.line";
    item.command = { command: "faultlens.revealLine", title: "Go to line", arguments: [node.uri, node.line] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Line text from the open document if there is one (it may be unsaved), else from disk. */
function lineTextReader(): (uri: string, line: number) => string | undefined {
  const cache = new Map<string, string[] | undefined>();
  return (uri, line) => {
    if (!cache.has(uri)) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === vscode.Uri.parse(uri).toString());
      let lines: string[] | undefined;
      if (doc !== undefined) lines = doc.getText().split(/\r?\n/);
      else {
        try {
          lines = fs.readFileSync(uriToPath(uri), "utf8").split(/\r?\n/);
        } catch {
          lines = undefined;
        }
      }
      cache.set(uri, lines);
    }
    return cache.get(uri)?.[line];
  };
}
