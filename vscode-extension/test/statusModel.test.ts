import assert from "node:assert/strict";
import { test } from "node:test";
import { presentStatus } from "../src/statusModel";

test("running shows progress with a spinner", () => {
  const p = presentStatus({ state: "running", message: "running tests 3/12" });
  assert.match(p.text, /sync~spin/);
  assert.match(p.text, /3\/12/);
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
