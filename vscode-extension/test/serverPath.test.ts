import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { expandSetting, INSTALL_HINT, isExecutableFile, resolveServerPath } from "../src/serverPath";

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "faultlens-ext-"));
}

function executable(dir: string, name = "faultlens"): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, "#!/bin/sh\n");
  fs.chmodSync(p, 0o755);
  return p;
}

test("the setting wins over PATH", () => {
  const a = tempDir();
  const b = tempDir();
  const fromSetting = executable(a);
  executable(b);
  const r = resolveServerPath({ setting: fromSetting, envPath: b });
  assert.deepEqual(r, { ok: true, path: fromSetting, source: "setting" });
});

test("a relative setting or ${workspaceFolder} resolves against the workspace", () => {
  const root = tempDir();
  fs.mkdirSync(path.join(root, "target", "debug"), { recursive: true });
  const bin = executable(path.join(root, "target", "debug"));
  assert.deepEqual(resolveServerPath({ setting: "target/debug/faultlens", envPath: "", workspaceRoot: root }), { ok: true, path: bin, source: "setting" });
  assert.deepEqual(resolveServerPath({ setting: "${workspaceFolder}/target/debug/faultlens", envPath: "", workspaceRoot: root }), {
    ok: true,
    path: bin,
    source: "setting",
  });
  assert.equal(expandSetting("~/bin/faultlens", undefined, "/home/u"), "/home/u/bin/faultlens");
});

test("a setting that points nowhere is an error naming the setting, not a PATH fallback", () => {
  const b = tempDir();
  executable(b);
  const r = resolveServerPath({ setting: "/nonexistent/faultlens", envPath: b });
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.message, /faultlens\.serverPath/);
    assert.match(r.message, /\/nonexistent\/faultlens/);
  }
});

test("PATH is searched in order, skipping non-executable files", () => {
  const a = tempDir();
  const b = tempDir();
  const c = tempDir();
  fs.writeFileSync(path.join(a, "faultlens"), "not executable");
  fs.chmodSync(path.join(a, "faultlens"), 0o644);
  const inB = executable(b);
  executable(c);
  const r = resolveServerPath({ setting: "", envPath: ["", a, b, c].join(":") });
  assert.deepEqual(r, { ok: true, path: inB, source: "PATH" });
  assert.equal(isExecutableFile(path.join(a, "faultlens")), false);
});

test("not found: a message that says how to install the server", () => {
  const r = resolveServerPath({ setting: "  ", envPath: tempDir() });
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.match(r.message, /not found/);
    assert.ok(r.message.includes(INSTALL_HINT));
    assert.match(r.message, /cargo install/);
  }
});

test("a directory named faultlens is not a server", () => {
  const a = tempDir();
  fs.mkdirSync(path.join(a, "faultlens"));
  assert.equal(resolveServerPath({ setting: "", envPath: a }).ok, false);
});
