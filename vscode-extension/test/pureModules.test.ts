import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

// The extension's own logic lives in modules that never import `vscode`, so
// these unit tests can run under plain node. Keep it that way.
const PURE = ["colorScale.ts", "format.ts", "heatPlan.ts", "protocol.ts", "serverPath.ts", "settings.ts", "statusModel.ts", "treeModel.ts"];

test("the logic modules do not import vscode", () => {
  const src = path.join(__dirname, "..", "..", "src");
  for (const file of PURE) {
    const text = fs.readFileSync(path.join(src, file), "utf8");
    assert.doesNotMatch(text, /from\s+["']vscode["']|require\(\s*["']vscode["']\s*\)/, `${file} imports vscode`);
    for (const m of text.matchAll(/from\s+["']\.\/([\w]+)["']/g)) {
      assert.ok(PURE.includes(`${m[1]}.ts`), `${file} imports ./${m[1]}, which is not a pure module`);
    }
  }
});
