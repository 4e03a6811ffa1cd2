import assert from "node:assert/strict";
import { test } from "node:test";
import type { RankingTest } from "../src/protocol";
import { buildTestTree, type ExecutableNode, type TestNode } from "../src/testsModel";

const run: RankingTest[] = [
  { name: "strbuf::append/grows", verdict: "pass", outcome: "passed", duration_ms: 3 },
  { name: "plain-test", verdict: "pass", outcome: "passed" },
  {
    name: "strbuf::trim/both_sides",
    verdict: "fail",
    outcome: "failed",
    duration_ms: 4,
    reason: "tests/t.c:98: Assertion Failed",
    location: { file: "tests/t.c", line: 98 },
  },
  { name: "strbuf::trim/hangs", verdict: "fail", outcome: "timed_out" },
];

test("cases are grouped under their executable, failing ones first", () => {
  const tree = buildTestTree(run);
  assert.deepEqual(
    tree.map((n) => n.label),
    ["strbuf", "plain-test"],
  );
  const group = tree[0] as ExecutableNode;
  assert.equal(group.kind, "executable");
  assert.equal(group.description, "2 of 3 cases failed");
  assert.equal(group.failed, true);
  assert.deepEqual(
    group.children.map((c) => c.label),
    ["trim/both_sides", "trim/hangs", "append/grows"],
  );
});

test("a case says its outcome, time, reason and where it failed", () => {
  const failing = (buildTestTree(run)[0] as ExecutableNode).children[0];
  assert.equal(failing.description, "failed · 4 ms");
  assert.equal(failing.name, "strbuf::trim/both_sides");
  assert.deepEqual(failing.location, { file: "tests/t.c", line: 98 });
  assert.match(failing.tooltip, /Assertion Failed\ntests\/t\.c:98$/);
  const hung = (buildTestTree(run)[0] as ExecutableNode).children[1];
  assert.equal(hung.description, "timed out");
});

test("tests without cases stay at the top level", () => {
  const plain = buildTestTree(run)[1] as TestNode;
  assert.equal(plain.kind, "test");
  assert.equal(plain.description, "passed");
  assert.equal(buildTestTree([]).length, 0);
  const allPass = buildTestTree([{ name: "x::a", verdict: "pass" }])[0] as ExecutableNode;
  assert.equal(allPass.description, "1 case passed");
});

test("a name holding `::` itself is cut at its last separator", () => {
  const tree = buildTestTree([{ name: "ns::suite::case", verdict: "pass" }]);
  const group = tree[0] as ExecutableNode;
  assert.equal(group.label, "ns::suite");
  assert.equal(group.children[0].label, "case");
});
