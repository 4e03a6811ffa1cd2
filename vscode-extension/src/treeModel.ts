// The Suspicious Lines view as plain data: ranked lines grouped by file or
// flat, with the labels the tree shows. No `vscode` import: unit-tested.
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { formatScore, rankLabel, shortText } from "./format";
import type { ScoredLine, ScoresParams } from "./protocol";

export interface LineNode {
  kind: "line";
  uri: string;
  /** 0-based. */
  line: number;
  /** "#1  0.94  mid.c:12" */
  label: string;
  /** The source line's text. */
  description: string;
  tooltip: string;
  stale: boolean;
  heat: number;
}

export interface FileNode {
  kind: "file";
  uri: string;
  /** Path relative to the workspace root. */
  label: string;
  /** "3 lines, best #1" */
  description: string;
  children: LineNode[];
}

export type TreeNode = FileNode | LineNode;

/** Looks up a line's text (0-based), or undefined when the file cannot be read. */
export type LineTextLookup = (uri: string, line: number) => string | undefined;

export function uriToPath(uri: string): string {
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

export function displayPath(uri: string, workspaceRoot: string | undefined): string {
  const p = uriToPath(uri);
  if (workspaceRoot !== undefined) {
    const rel = path.relative(workspaceRoot, p);
    if (rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
  }
  return p;
}

/** Rank order: by average rank, then file, then line, so ties list stably. */
function compareLines(a: { uri: string; l: ScoredLine }, b: { uri: string; l: ScoredLine }): number {
  return a.l.rank.average - b.l.rank.average || a.l.rank.best - b.l.rank.best || a.uri.localeCompare(b.uri) || a.l.line - b.l.line;
}

function lineNode(uri: string, l: ScoredLine, measure: string, root: string | undefined, text: LineTextLookup): LineNode {
  const file = displayPath(uri, root);
  const where = `${path.posix.basename(file)}:${l.line + 1}`;
  const source = text(uri, l.line);
  const stale = l.stale ? " (stale)" : "";
  const measureName = measure !== "" ? measure : "score";
  return {
    kind: "line",
    uri,
    line: l.line,
    label: `${rankLabel(l.rank)}  ${formatScore(l.score)}  ${where}${stale}`,
    description: source !== undefined ? shortText(source) : "",
    tooltip:
      `${file}:${l.line + 1}\n` +
      `rank ${rankLabel(l.rank)} by ${measureName} ${formatScore(l.score)}\n` +
      `run by ${l.ef} failing and ${l.ep} passing tests` +
      (l.stale ? "\nstale: the file changed since the last run; Localize again" : ""),
    stale: l.stale,
    heat: l.heat,
  };
}

export interface TreeOptions {
  groupByFile: boolean;
  workspaceRoot?: string;
  lineText: LineTextLookup;
}

/** The view's top-level nodes for a scores notification. */
export function buildTree(scores: ScoresParams | undefined, o: TreeOptions): TreeNode[] {
  if (scores === undefined) return [];
  const all = scores.files.flatMap((f) => f.lines.map((l) => ({ uri: f.uri, l })));
  all.sort(compareLines);
  const nodes = all.map((x) => lineNode(x.uri, x.l, scores.measure, o.workspaceRoot, o.lineText));
  if (!o.groupByFile) return nodes;

  // Files in the order of their best line; lines keep rank order inside a file.
  const byFile = new Map<string, FileNode>();
  for (const n of nodes) {
    let f = byFile.get(n.uri);
    if (f === undefined) {
      f = { kind: "file", uri: n.uri, label: displayPath(n.uri, o.workspaceRoot), description: "", children: [] };
      byFile.set(n.uri, f);
    }
    f.children.push(n);
  }
  for (const f of byFile.values()) {
    const best = f.children[0].label.split("  ")[0];
    const count = f.children.length;
    f.description = `${count} line${count === 1 ? "" : "s"}, best ${best}`;
  }
  return [...byFile.values()];
}
