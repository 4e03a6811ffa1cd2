import assert from "node:assert/strict";
import { test } from "node:test";
import { configurationChange, DEFAULT_SETTINGS, initializationOptions, MEASURES, normalizeMeasure, readServerSettings } from "../src/settings";

const reader = (o: Record<string, unknown>) => (k: string) => o[k];

test("defaults when nothing is set", () => {
  assert.deepEqual(readServerSettings(reader({})), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, {
    measure: "ochiai",
    topN: 10,
    autoRunOnSave: false,
    diagnose: true,
    fuseDiagnosis: true,
    diagnoseTimeLimitSeconds: 30,
    diagnoseEffort: null,
    localizeAfterTestRuns: true,
    testCommands: null,
  });
  // No timeout key at all: the server then keeps the project's own [run] timeout.
  assert.equal("timeoutSeconds" in readServerSettings(reader({ timeoutSeconds: null })), false);
});

test("settings map one to one onto the server's keys", () => {
  const s = readServerSettings(reader({ measure: "DStar", topN: 25, autoRunOnSave: true, timeoutSeconds: 2.5, serverPath: "/x", "heatmap.enabled": false }));
  assert.deepEqual(s, {
    measure: "dstar",
    topN: 25,
    autoRunOnSave: true,
    timeoutSeconds: 2.5,
    diagnose: true,
    fuseDiagnosis: true,
    diagnoseTimeLimitSeconds: 30,
    diagnoseEffort: null,
    localizeAfterTestRuns: true,
    testCommands: null,
  });
  const d = readServerSettings(reader({ diagnose: false, diagnoseTimeLimitSeconds: 5, fuseDiagnosis: false }));
  assert.equal(d.diagnose, false);
  assert.equal(d.fuseDiagnosis, false);
  assert.equal(d.diagnoseTimeLimitSeconds, 5);
  assert.equal(readServerSettings(reader({ diagnoseEffort: 12.5 })).diagnoseEffort, 12.5);
});

test("test-run settings: a list of command lines, else the server's defaults", () => {
  const s = readServerSettings(reader({ localizeAfterTestRuns: false, testCommands: ["./run-tests", "", 3] }));
  assert.equal(s.localizeAfterTestRuns, false);
  assert.deepEqual(s.testCommands, ["./run-tests"]);
  assert.equal(readServerSettings(reader({ testCommands: [] })).testCommands, null);
  assert.equal(readServerSettings(reader({ testCommands: "ctest" })).testCommands, null);
  assert.equal(readServerSettings(reader({ localizeAfterTestRuns: "no" })).localizeAfterTestRuns, true);
});

test("bad values fall back to the defaults or are clamped", () => {
  const s = readServerSettings(reader({ measure: "  ", topN: 0, autoRunOnSave: "yes", timeoutSeconds: -1 }));
  assert.deepEqual(s, DEFAULT_SETTINGS);
  assert.equal(readServerSettings(reader({ topN: 7.9 })).topN, 7);
  assert.equal(readServerSettings(reader({ topN: 1e9 })).topN, 1000);
  assert.equal(readServerSettings(reader({ timeoutSeconds: Number.POSITIVE_INFINITY })).timeoutSeconds, undefined);
  assert.equal(readServerSettings(reader({ diagnose: "no" })).diagnose, true);
  assert.equal(readServerSettings(reader({ diagnoseTimeLimitSeconds: 0 })).diagnoseTimeLimitSeconds, 30);
  assert.equal(readServerSettings(reader({ diagnoseTimeLimitSeconds: 1e9 })).diagnoseTimeLimitSeconds, 3600);
  assert.equal(readServerSettings(reader({ diagnoseEffort: 0 })).diagnoseEffort, null);
  assert.equal(readServerSettings(reader({ diagnoseEffort: "30" })).diagnoseEffort, null);
  assert.equal(readServerSettings(reader({ diagnoseEffort: 1e9 })).diagnoseEffort, 3600);
});

test("measure names are normalized like the server does", () => {
  assert.equal(normalizeMeasure("Sorensen_Dice"), "sorensen-dice");
  assert.equal(normalizeMeasure(3), "ochiai");
  assert.equal(normalizeMeasure("dstar3"), "dstar3");
});

test("initializationOptions carry trust; configuration changes never do", () => {
  const s = readServerSettings(reader({ measure: "op2" }));
  assert.deepEqual(initializationOptions(s, false), { ...s, trusted: false });
  assert.equal(initializationOptions(s, true).trusted, true);
  const change = configurationChange(s);
  assert.deepEqual(change, {
    settings: {
      faultlens: {
        measure: "op2",
        topN: 10,
        autoRunOnSave: false,
        diagnose: true,
        fuseDiagnosis: true,
        diagnoseTimeLimitSeconds: 30,
        diagnoseEffort: null,
        localizeAfterTestRuns: true,
        testCommands: null,
      },
    },
  });
  assert.equal(configurationChange(readServerSettings(reader({ timeoutSeconds: 3 }))).settings.faultlens.timeoutSeconds, 3);
  assert.equal("trusted" in change.settings.faultlens, false);
});

test("measure choices have unique ids the server knows", () => {
  const ids = MEASURES.map((m) => m.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ["ochiai", "dstar", "tarantula", "op2", "opt", "blockrank"]) assert.ok(ids.includes(id), id);
});
