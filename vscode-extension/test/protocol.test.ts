import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { parseFailingTest, parseFailingTests, parseRanking, parseScores, parseStatus, progressJob, runsCode, testRunEnded } from "../src/protocol";

/** Every `<!-- example: Type -->` JSON block of editors/lsp-extensions.md, the protocol's document. */
function documentedExamples(): { type: string; value: unknown }[] {
  // Compiled to out/test/: the repository root is three levels up.
  const doc = fs.readFileSync(path.join(__dirname, "..", "..", "..", "editors", "lsp-extensions.md"), "utf8");
  const found: { type: string; value: unknown }[] = [];
  const marker = /<!-- example: (\w+) -->\s*```json\n([\s\S]*?)```/g;
  for (let m = marker.exec(doc); m !== null; m = marker.exec(doc)) {
    found.push({ type: m[1], value: JSON.parse(m[2]) });
  }
  return found;
}

test("every documented server message parses back whole: protocol.ts declares every field", () => {
  const parsers: Record<string, (raw: unknown) => unknown> = {
    ScoresParams: parseScores,
    StatusParams: parseStatus,
    RankingDocument: parseRanking,
    FailingTest: parseFailingTest,
  };
  const checked = new Set<string>();
  for (const { type, value } of documentedExamples()) {
    const parse = parsers[type];
    if (parse === undefined) continue; // sent by the client, not parsed here
    assert.deepStrictEqual(parse(value), value, `${type}: protocol.ts drops or changes a documented field`);
    checked.add(type);
  }
  assert.deepStrictEqual([...checked].sort(), Object.keys(parsers).sort(), "every parsed message has a documented example");
});

test("the client's faultlens/testRunEnded is exactly the documented message", () => {
  const examples = documentedExamples().filter((e) => e.type === "TestRunEndedParams");
  assert.equal(examples.length, 2);
  const built = [
    testRunEnded("ctest --test-dir build", "terminal", 8, "/home/ada/ringbuf"),
    testRunEnded("./check.sh --quick", "task", 1, undefined, true),
  ];
  for (let i = 0; i < examples.length; i++) {
    // Same keys in the same order: what JSON.stringify sends.
    assert.equal(JSON.stringify(built[i]), JSON.stringify(examples[i].value));
  }
});

test("progress tokens name their job", () => {
  assert.deepStrictEqual(progressJob("faultlens/run/3"), { kind: "run", n: 3 });
  assert.deepStrictEqual(progressJob("faultlens/diagnose/12"), { kind: "diagnose", n: 12 });
  assert.equal(progressJob("faultlens/run/x"), undefined);
  assert.equal(progressJob("other/run/3"), undefined);
  assert.equal(progressJob(7), undefined);
});

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
  assert.deepEqual(parseFailingTests([{ name: "t1", reason: "wrong output" }, 5]), [{ name: "t1", reason: "wrong output" }]);
  assert.deepEqual(parseFailingTests(null), []);
});
