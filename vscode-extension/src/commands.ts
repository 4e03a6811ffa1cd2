// The palette commands. Each is a thin shell over the server connection, the
// heatmap and the view; whatever a command shows it also returns, so the
// end-to-end test can check it through `vscode.commands.executeCommand`.
import * as path from "node:path";
import * as vscode from "vscode";
import { formatScore, rankLabel, shortText } from "./format";
import { parseFailingTests, parseRanking, type FailingTest, type LspLocation, type RankingResponse } from "./protocol";
import { warnUntrusted, workspaceRoot, type ServerConnection } from "./serverConnection";
import { MEASURES, normalizeMeasure } from "./settings";

export interface CommandContext {
  connection: ServerConnection;
  log: vscode.OutputChannel;
}

/** Writes a setting where it takes effect: the workspace if it already sets it, else the user settings. */
async function updateSetting(key: string, value: unknown): Promise<void> {
  const cfg = vscode.workspace.getConfiguration("faultlens");
  const inspect = cfg.inspect(key);
  const target =
    inspect?.workspaceFolderValue !== undefined
      ? vscode.ConfigurationTarget.WorkspaceFolder
      : inspect?.workspaceValue !== undefined
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
  await cfg.update(key, value, target);
}

function reportError(what: string, e: unknown, log: vscode.OutputChannel): void {
  const message = e instanceof Error ? e.message : String(e);
  log.appendLine(`[client] ${what}: ${message}`);
  void vscode.window.showErrorMessage(`faultlens: ${what}: ${message}`);
}

export async function localize(ctx: CommandContext): Promise<unknown> {
  if (!vscode.workspace.isTrusted) {
    warnUntrusted();
    return undefined;
  }
  try {
    return await ctx.connection.executeCommand("faultlens.localize");
  } catch (e) {
    reportError("Localize failed", e, ctx.log);
    return undefined;
  }
}

export async function chooseMeasure(preset?: string): Promise<string | undefined> {
  let measure = preset;
  if (measure === undefined) {
    const current = normalizeMeasure(vscode.workspace.getConfiguration("faultlens").get("measure"));
    const other = "Other measure…";
    const items: vscode.QuickPickItem[] = [
      ...MEASURES.map((m) => ({ label: m.label, description: m.id === current ? `${m.id} (current)` : m.id, detail: m.description || undefined })),
      { label: other, description: "type a name such as dstar3 or opt-tarantula" },
    ];
    const pick = await vscode.window.showQuickPick(items, { title: "faultlens: rank lines by which measure?", matchOnDescription: true });
    if (pick === undefined) return undefined;
    if (pick.label === other) {
      measure = await vscode.window.showInputBox({ title: "faultlens: measure name", value: current });
      if (measure === undefined) return undefined;
    } else {
      measure = MEASURES.find((m) => m.label === pick.label)?.id;
    }
  }
  const id = normalizeMeasure(measure);
  // The configuration listener passes the change on to the server, which re-ranks.
  await updateSetting("measure", id);
  return id;
}

export async function toggleHeatmap(): Promise<boolean> {
  const enabled = vscode.workspace.getConfiguration("faultlens").get<boolean>("heatmap.enabled", true);
  await updateSetting("heatmap.enabled", !enabled);
  return !enabled;
}

export async function toggleGrouping(): Promise<boolean> {
  const grouped = vscode.workspace.getConfiguration("faultlens").get<boolean>("view.groupByFile", true);
  await updateSetting("view.groupByFile", !grouped);
  return !grouped;
}

/** Failing tests that ran the line under the cursor (or all of them), as a pick list. */
export async function showFailingTests(ctx: CommandContext): Promise<FailingTest[]> {
  const editor = vscode.window.activeTextEditor;
  const args = editor !== undefined && editor.document.uri.scheme === "file" ? [{ uri: editor.document.uri.toString(), line: editor.selection.active.line }] : [];
  let tests: FailingTest[];
  try {
    tests = parseFailingTests(await ctx.connection.executeCommand("faultlens.showFailingTests", args));
  } catch (e) {
    reportError("Show failing tests failed", e, ctx.log);
    return [];
  }
  if (tests.length === 0) return tests;
  void vscode.window
    .showQuickPick(
      tests.map((t) => ({ label: t.name, detail: t.reason, test: t })),
      { title: `faultlens: ${tests.length} failing test${tests.length === 1 ? "" : "s"}${args.length > 0 ? " that ran this line" : ""}`, matchOnDetail: true },
    )
    .then(async (pick) => {
      const loc = pick !== undefined ? locationOf(pick.test.location) : undefined;
      if (loc !== undefined) await revealLine(loc.uri, loc.line);
    });
  return tests;
}

/** Where a failing test is defined, as a file URI and a 0-based line. */
function locationOf(location: LspLocation | undefined): { uri: string; line: number } | undefined {
  return location === undefined ? undefined : { uri: location.uri, line: location.range.start.line };
}

/** The whole ranking (the CLI's JSON shape) as a pick list; picking a line opens it. */
export async function showRanking(ctx: CommandContext): Promise<RankingResponse | undefined> {
  let ranking: RankingResponse;
  try {
    ranking = parseRanking(await ctx.connection.request("faultlens/ranking", {}));
  } catch (e) {
    reportError("Show ranking failed", e, ctx.log);
    return undefined;
  }
  const root = workspaceRoot() ?? "";
  const items = ranking.ranking.map((r) => ({
    label: `${rankLabel(r.rank)}  ${formatScore(r.score)}  ${r.file}:${r.line}`,
    description: shortText(r.text ?? "", 60),
    detail: `run by ${r.ef} failing and ${r.ep} passing tests`,
    target: { uri: vscode.Uri.file(path.resolve(root, r.file)).toString(), line: r.line - 1 },
  }));
  void vscode.window
    .showQuickPick(items, {
      title: `faultlens ranking by ${ranking.measure}: ${ranking.tests.failed} failing of ${ranking.tests.total} tests`,
      matchOnDescription: true,
    })
    .then(async (pick) => {
      if (pick !== undefined) await revealLine(pick.target.uri, pick.target.line);
    });
  return ranking;
}

export async function revealLine(uri: string, line: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  const pos = new vscode.Position(Math.min(line, Math.max(0, doc.lineCount - 1)), 0);
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(pos, pos), preview: false });
  vscode.window.activeTextEditor?.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
