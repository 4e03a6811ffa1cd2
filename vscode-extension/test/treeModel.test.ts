import assert from "node:assert/strict";
import { test } from "node:test";
import type { ScoredLine, ScoresParams } from "../src/protocol";
import { buildTree, displayPath, type FileNode, type LineNode } from "../src/treeModel";

function line(l: number, best: number, worst: number, score: number, extra: Partial<ScoredLine> = {}): ScoredLine {
  return { line: l, score, heat: score, rank: { best, worst, average: (best + worst) / 2 }, ef: 2, ep: 1, stale: false, ...extra };
}

const scores: ScoresParams = {
  measure: "ochiai",
  files: [
    { uri: "file:///w/src/util.c", lines: [line(4, 2, 3, 0.8), line(9, 5, 5, 0.3, { stale: true })] },
    { uri: "file:///w/mid.c", lines: [line(20, 4, 4, 0.5), line(11, 1, 1, 0.94), line(13, 2, 3, 0.8)] },
  ],
};

const text = (uri: string, l: number) => (uri.endsWith("mid.c") && l === 11 ? "        m = y;" : undefined);

test("grouped: files in the order of their best line, lines by rank inside", () => {
  const roots = buildTree(scores, { groupByFile: true, workspaceRoot: "/w", lineText: text }) as FileNode[];
  assert.deepEqual(
    roots.map((f) => f.label),
    ["mid.c", "src/util.c"],
  );
  assert.deepEqual(
    roots[0].children.map((c) => c.line),
    [11, 13, 20],
  );
  assert.equal(roots[0].description, "3 lines, best #1");
  assert.equal(roots[1].description, "2 lines, best #2–3");
});

test("line labels carry rank, score, file:line and the line text", () => {
  const roots = buildTree(scores, { groupByFile: true, workspaceRoot: "/w", lineText: text }) as FileNode[];
  const top = roots[0].children[0];
  assert.equal(top.label, "#1  0.94  mid.c:12");
  assert.equal(top.description, "m = y;");
  assert.match(top.tooltip, /mid\.c:12/);
  assert.match(top.tooltip, /ochiai 0\.94/);
  assert.match(top.tooltip, /2 failing and 1 passing/);
});

test("flat: every line in rank order, ties listed stably by file then line", () => {
  const flat = buildTree(scores, { groupByFile: false, workspaceRoot: "/w", lineText: text }) as LineNode[];
  assert.deepEqual(
    flat.map((n) => `${n.uri.split("/").pop()}:${n.line}`),
    ["mid.c:11", "mid.c:13", "util.c:4", "mid.c:20", "util.c:9"],
  );
  assert.ok(flat.every((n) => n.kind === "line"));
});

test("stale lines say so", () => {
  const flat = buildTree(scores, { groupByFile: false, workspaceRoot: "/w", lineText: text }) as LineNode[];
  const stale = flat.find((n) => n.stale);
  assert.ok(stale);
  assert.match(stale.label, /\(stale\)$/);
  assert.match(stale.tooltip, /stale/);
  assert.equal(flat.filter((n) => n.stale).length, 1);
});

test("no scores, no nodes", () => {
  assert.deepEqual(buildTree(undefined, { groupByFile: true, lineText: text }), []);
  assert.deepEqual(buildTree({ measure: "x", files: [] }, { groupByFile: false, lineText: text }), []);
});

test("paths outside the workspace stay absolute; percent-encoding is decoded", () => {
  assert.equal(displayPath("file:///elsewhere/a.c", "/w"), "/elsewhere/a.c");
  assert.equal(displayPath("file:///w/my%20dir/a.c", "/w"), "my dir/a.c");
  assert.equal(displayPath("file:///w/a.c", undefined), "/w/a.c");
});
