import assert from "node:assert/strict";
import { test } from "node:test";
import { presentStatus } from "../src/statusModel";

test("running shows progress with a spinner", () => {
  const p = presentStatus({ state: "running", message: "localizing: building and running the tests" });
  assert.match(p.text, /sync~spin/);
  assert.match(p.text, /running/);
  assert.match(p.tooltip, /building and running/);
});

test("done shows how many tests fail", () => {
  assert.match(presentStatus({ state: "done", message: "3 failing of 12 tests", failing: 3, total: 12 }).text, /3 failing of 12/);
  assert.match(presentStatus({ state: "done", message: "", failing: 0, total: 12 }).text, /no failing tests/);
});

test("stale, error, untrusted and missing server are visible states", () => {
  assert.equal(presentStatus({ state: "stale", message: "" }).severity, "warning");
  assert.match(presentStatus({ state: "stale", message: "" }).text, /stale/);
  const err = presentStatus({ state: "error", message: "build failed: mid.c:3: error" });
  assert.equal(err.severity, "error");
  assert.match(err.tooltip, /build failed/);
  assert.match(presentStatus({ state: "untrusted", message: "" }).tooltip, /not trusted/);
  assert.equal(presentStatus("notFound").severity, "error");
  assert.match(presentStatus({ state: "noResults", message: "" }).text, /no results/);
});

test("untrusted workspaces mark results as read-only", () => {
  const s = { state: "done" as const, message: "3 failing of 15 tests", failing: 3, total: 15 };
  assert.doesNotMatch(presentStatus(s, true).text, /shield/);
  assert.match(presentStatus(s, false).text, /shield/);
  assert.match(presentStatus(s, false).tooltip, /not trusted/);
});

test("a running localization shows its progress", () => {
  const running = { state: "running" as const, message: "localizing: building and running the tests" };
  const p = presentStatus(running, true, { percentage: 42.4, message: "running tests 6/15: descending" });
  assert.equal(p.text, "$(sync~spin) faultlens: running 42%");
  assert.match(p.tooltip, /running tests 6\/15: descending/);
  // Progress left over from a run never leaks into other states.
  assert.match(presentStatus({ state: "done", message: "", failing: 3, total: 15 }, true, { percentage: 90 }).text, /3 failing of 15/);
});
