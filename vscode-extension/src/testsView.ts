// The Tests view: the last run's tests, a unit-test executable's cases
// under it (see testsModel.ts); clicking a test opens where it is (a
// failing case: its failed assertion). Refreshed from `faultlens/ranking`
// when new results are published and the view is visible.
import * as path from "node:path";
import * as vscode from "vscode";
import { parseRanking } from "./protocol";
import { buildTestTree, type TestTreeNode } from "./testsModel";

export class TestsProvider implements vscode.TreeDataProvider<TestTreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TestTreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: TestTreeNode[] = [];
  private root: string | undefined;
  /** Answers to requests older than the newest one are dropped. */
  private asked = 0;

  constructor(private readonly request: (method: string, params: unknown) => Promise<unknown>) {}

  /** The current top-level nodes (with children); for tests. */
  snapshot(): TestTreeNode[] {
    return this.roots;
  }

  async refresh(): Promise<void> {
    const ask = ++this.asked;
    let roots: TestTreeNode[] = [];
    try {
      const ranking = parseRanking(await this.request("faultlens/ranking", {}));
      this.root = ranking.project_root;
      roots = buildTestTree(ranking.tests.list);
    } catch {
      // No results yet (or the server is restarting): an empty view says so.
    }
    if (ask !== this.asked) return;
    this.roots = roots;
    this.changed.fire(undefined);
  }

  getChildren(node?: TestTreeNode): TestTreeNode[] {
    if (node === undefined) return this.roots;
    return node.kind === "executable" ? node.children : [];
  }

  getTreeItem(node: TestTreeNode): vscode.TreeItem {
    const icon = node.failed
      ? new vscode.ThemeIcon("error", new vscode.ThemeColor("testing.iconFailed"))
      : new vscode.ThemeIcon("pass", new vscode.ThemeColor("testing.iconPassed"));
    if (node.kind === "executable") {
      const item = new vscode.TreeItem(
        node.label,
        node.failed ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.description = node.description;
      item.iconPath = icon;
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.iconPath = icon;
    if (node.location !== undefined && this.root !== undefined) {
      const uri = vscode.Uri.file(path.join(this.root, node.location.file)).toString();
      item.command = { command: "faultlens.revealLine", title: "Go to test", arguments: [uri, node.location.line - 1] };
    }
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
