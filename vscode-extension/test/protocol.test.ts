import assert from "node:assert/strict";
import { test } from "node:test";
import { parseFailingTests, parseRanking, parseScores, parseStatus, runsCode } from "../src/protocol";

test("commands that run code, including test generation, are known", () => {
  assert.equal(runsCode("faultlens.localize"), true);
  assert.equal(runsCode("faultlens.diagnose"), true);
  assert.equal(runsCode("faultlens.generateTests"), true);
  assert.equal(runsCode("faultlens.showFailingTests"), false);
  assert.equal(runsCode("faultlens.setMeasure"), false);
});

test("scores notification parses per the contract", () => {
  const s = parseScores({
    measure: "ochiai",
    files: [
      {
        uri: "file:///p/mid.c",
        lines: [{ line: 11, score: 0.94, heat: 1, rank: { best: 1, worst: 1, average: 1 }, ef: 3, ep: 1, stale: false }],
      },
    ],
  });
  assert.equal(s.measure, "ochiai");
  assert.deepEqual(s.files[0].lines[0], { line: 11, score: 0.94, heat: 1, rank: { best: 1, worst: 1, average: 1 }, ef: 3, ep: 1, stale: false });
});

test("malformed lines are dropped, missing fields defaulted", () => {
  const s = parseScores({
    files: [{ uri: "file:///a.c", lines: [{ line: -1 }, "x", { line: 2, rank: 3 }] }, { lines: [] }, null],
  });
  assert.equal(s.files.length, 1);
  assert.equal(s.files[0].lines.length, 1);
  assert.deepEqual(s.files[0].lines[0].rank, { best: 3, worst: 3, average: 3 });
  assert.equal(s.files[0].lines[0].stale, false);
  assert.deepEqual(parseScores(undefined), { measure: "", files: [] });
});

test("status notification: known states kept, unknown ones read as idle", () => {
  assert.deepEqual(parseStatus({ state: "done", message: "3 failing of 12 tests", failing: 3, total: 12 }), {
    state: "done",
    message: "3 failing of 12 tests",
    failing: 3,
    total: 12,
  });
  assert.equal(parseStatus({ state: "weird" }).state, "idle");
  assert.deepEqual(parseStatus({ state: "done", message: "m", diagnosis: { state: "done", message: "4 diagnoses of 3 failing tests" } }).diagnosis, {
    state: "done",
    message: "4 diagnoses of 3 failing tests",
  });
  assert.equal(parseStatus({ state: "done", message: "m", diagnosis: 3 }).diagnosis, undefined);
  assert.equal(parseStatus({ state: "noResults" }).state, "noResults");
});

test("ranking response parses the CLI's JSON shape", () => {
  const r = parseRanking({
    measure: "dstar",
    tests: { total: 2, failed: 1, list: [{ name: "t1", verdict: "fail", outcome: "failed", duration_ms: 3, reason: "exit 1" }, { name: "t2", verdict: "pass" }] },
    ranking: [{ file: "mid.c", line: 12, text: "  m = y;", score: 3.2, rank: { best: 1, worst: 2, average: 1.5 }, ef: 1, ep: 0 }],
  });
  assert.equal(r.tests.failed, 1);
  assert.equal(r.tests.list[0].reason, "exit 1");
  assert.equal(r.ranking[0].rank.worst, 2);
  assert.equal(r.ranking[0].line, 12);
});

test("failing tests list", () => {
  assert.deepEqual(parseFailingTests([{ name: "t1", reason: "wrong output" }, 5]), [{ name: "t1", reason: "wrong output", location: undefined }]);
  assert.deepEqual(parseFailingTests(null), []);
});
