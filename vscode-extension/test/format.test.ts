import assert from "node:assert/strict";
import { test } from "node:test";
import { formatScore, rankLabel, shortText } from "../src/format";

test("rank labels show ties as ranges", () => {
  assert.equal(rankLabel({ best: 1, worst: 1, average: 1 }), "#1");
  assert.equal(rankLabel({ best: 2, worst: 4, average: 3 }), "#2–4");
  assert.equal(rankLabel({ best: Number.POSITIVE_INFINITY, worst: Number.POSITIVE_INFINITY, average: 0 }), "#?");
});

test("scores: two decimals, large and infinite ones readable", () => {
  assert.equal(formatScore(0.94387), "0.94");
  assert.equal(formatScore(1), "1.00");
  assert.equal(formatScore(250.4), "250");
  assert.equal(formatScore(12345), "1.23e+4");
  assert.equal(formatScore(Number.POSITIVE_INFINITY), "∞");
  assert.equal(formatScore(Number.MAX_VALUE), "∞");
  assert.equal(formatScore(-Number.MAX_VALUE), "-∞");
  assert.equal(formatScore(Number.NaN), "?");
});

test("source lines are trimmed and shortened", () => {
  assert.equal(shortText("    if (a <  b)\t{"), "if (a < b) {");
  assert.equal(shortText("x".repeat(100), 10), "xxxxxxxxx…");
});
