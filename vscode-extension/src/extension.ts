// Entry point: wires the server connection to the heatmap, the Suspicious
// Lines view and the status bar, and registers the palette commands.
import * as vscode from "vscode";
import * as commands from "./commands";
import { Heatmap, type PaintedLine } from "./heatmap";
import { TEST_RUN_ENDED, type ScoresParams, type StatusParams } from "./protocol";
import { ServerConnection } from "./serverConnection";
import { SERVER_SETTING_KEYS } from "./settings";
import { StatusItem } from "./statusBar";
import type { ClientState } from "./statusModel";
import { SuspiciousLinesProvider } from "./suspiciousView";
import type { TestTreeNode } from "./testsModel";
import { watchTestRuns } from "./testRuns";
import { TestsProvider } from "./testsView";
import type { TreeNode } from "./treeModel";

/** What `activate` returns: read-only state for tests, which cannot read decorations or tree rows back. */
export interface FaultlensApi {
  scores(): ScoresParams | undefined;
  status(): StatusParams | ClientState;
  statusBarText(): string;
  /** The status bar item's recent texts, oldest first. */
  statusBarHistory(): string[];
  heatmap(): PaintedLine[];
  heatmapEnabled(): boolean;
  tree(): TreeNode[];
  /** The Tests view's nodes: each unit-test executable's cases under it. */
  tests(): TestTreeNode[];
  /** Refreshes the Tests view now (it refreshes itself when visible). */
  refreshTests(): Promise<void>;
  serverPath(): string | undefined;
  serverRunning(): boolean;
  /** Resolves once the first start attempt has finished. */
  ready: Promise<void>;
}

export function activate(context: vscode.ExtensionContext): FaultlensApi {
  const log = vscode.window.createOutputChannel("faultlens");
  const cfg = () => vscode.workspace.getConfiguration("faultlens");
  const heatmap = new Heatmap(cfg().get<boolean>("heatmap.enabled", true));
  const tree = new SuspiciousLinesProvider(cfg().get<boolean>("view.groupByFile", true));
  const status = new StatusItem();
  let scores: ScoresParams | undefined;

  const view = vscode.window.createTreeView("faultlens.suspiciousLines", { treeDataProvider: tree, showCollapseAll: true });
  // The Tests view asks the server (created next) for the run's tests.
  const tests = new TestsProvider((method, params) => connection.request(method, params));
  const testsView = vscode.window.createTreeView("faultlens.tests", { treeDataProvider: tests, showCollapseAll: true });
  const connection = new ServerConnection(log, {
    scores: (s) => {
      scores = s;
      heatmap.setScores(s);
      tree.setScores(s);
      const count = s.files.reduce((n, f) => n + f.lines.length, 0);
      view.message = count === 0 ? "No line was run by a failing test." : undefined;
      view.description = s.measure !== "" ? `by ${s.measure}` : undefined;
      if (testsView.visible) void tests.refresh();
    },
    status: (s) => status.show(s),
    clientState: (s) => status.show(s),
    progress: (p) => status.showProgress(p),
  });
  const ctx: commands.CommandContext = { connection, log };

  const register = (id: string, fn: (...args: never[]) => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, fn));
  register("faultlens.runLocalize", () => commands.localize(ctx));
  register("faultlens.chooseMeasure", (measure?: string) => commands.chooseMeasure(measure));
  register("faultlens.toggleHeatmap", () => commands.toggleHeatmap());
  register("faultlens.toggleGrouping", () => commands.toggleGrouping());
  register("faultlens.showFailingTestsHere", () => commands.showFailingTests(ctx));
  register("faultlens.showRanking", () => commands.showRanking(ctx));
  register("faultlens.restartServer", () => connection.restart());
  register("faultlens.showOutput", () => log.show(true));
  register("faultlens.showView", () => vscode.commands.executeCommand("faultlens.suspiciousLines.focus"));
  register("faultlens.revealLine", (uri: string, line: number) => commands.revealLine(uri, line));

  context.subscriptions.push(
    log,
    heatmap,
    tree,
    tests,
    testsView,
    testsView.onDidChangeVisibility((e) => {
      if (e.visible) void tests.refresh();
    }),
    status,
    view,
    connection,
    vscode.window.onDidChangeVisibleTextEditors((editors) => heatmap.render(editors)),
    // Your own test runs in the terminal or tasks: the server re-localizes when one fails.
    watchTestRuns(
      (params) => connection.notify(TEST_RUN_ENDED, params),
      (line) => log.appendLine(line),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("faultlens.serverPath")) void connection.restartIfServerPathChanged();
      else if (SERVER_SETTING_KEYS.some((k) => e.affectsConfiguration(`faultlens.${k}`))) void connection.sendSettings();
      if (e.affectsConfiguration("faultlens.heatmap.enabled")) heatmap.setEnabled(cfg().get<boolean>("heatmap.enabled", true));
      if (e.affectsConfiguration("faultlens.view.groupByFile")) tree.setGroupByFile(cfg().get<boolean>("view.groupByFile", true));
    }),
    // The server was told `trusted: false` at initialize; a fresh start tells it the news.
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.appendLine("[client] workspace trust granted: restarting the server");
      void connection.restart();
    }),
  );

  active = connection;
  const ready = connection.start();
  return {
    scores: () => scores,
    status: () => status.current(),
    statusBarText: () => status.text(),
    statusBarHistory: () => [...status.history],
    heatmap: () => heatmap.snapshot(),
    heatmapEnabled: () => heatmap.isEnabled(),
    tree: () => tree.snapshot(),
    tests: () => tests.snapshot(),
    refreshTests: () => tests.refresh(),
    serverPath: () => connection.resolvedServerPath(),
    serverRunning: () => connection.isRunning(),
    ready,
  };
}

let active: ServerConnection | undefined;

/** Waits for the server to shut down so no process outlives the window. */
export function deactivate(): Promise<void> | undefined {
  return active?.stop();
}
