import assert from "node:assert/strict";
import { test } from "node:test";
import { shadeStyle, STALE_STYLE } from "../src/colorScale";
import { planHeatmap, STALE_KEY } from "../src/heatPlan";
import type { ScoredLine } from "../src/protocol";

function line(l: number, heat: number, best: number, worst = best, stale = false): ScoredLine {
  return { line: l, score: heat, heat, rank: { best, worst, average: (best + worst) / 2 }, ef: 1, ep: 0, stale };
}

test("each line gets its shade's colours and its rank after it", () => {
  const plan = planHeatmap([line(21, 1, 1), line(19, 0.5, 2, 4)], 50);
  assert.deepEqual(
    plan.map((p) => [p.line, p.key, p.after]),
    [
      [21, 100, " #1"],
      [19, 50, " #2–4"],
    ],
  );
  assert.deepEqual(plan[0].style, shadeStyle(100));
  assert.notEqual(plan[0].style.background, plan[1].style.background);
});

test("stale lines are grey and say so", () => {
  const [p] = planHeatmap([line(3, 0.9, 1, 1, true)], 10);
  assert.equal(p.key, STALE_KEY);
  assert.deepEqual(p.style, STALE_STYLE);
  assert.equal(p.after, " #1 stale");
});

test("lines past the end of an edited, shorter document are skipped", () => {
  assert.deepEqual(
    planHeatmap([line(9, 1, 1), line(10, 1, 2)], 10).map((p) => p.line),
    [9],
  );
});

test("nearby heats share a decoration type; 101 at most", () => {
  const keys = new Set(planHeatmap(Array.from({ length: 1000 }, (_, i) => line(i, i / 999, i + 1)), 1000).map((p) => p.key));
  assert.equal(keys.size, 101);
});
