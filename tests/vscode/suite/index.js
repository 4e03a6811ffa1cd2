// Runs inside VS Code's extension host (code-server, loaded through the
// `extensionTestsPath` payload) against the packaged extension and the real
// faultlens server. It uses the public API only: diagnostics, the code lens
// and hover providers, commands, and the state `activate()` returns (the API
// cannot read decorations or tree rows back). Every check is recorded, pass
// or fail, in the JSON file named by FAULTLENS_E2E_RESULTS; the driver
// (tests/vscode/e2e.mjs) reads it.
//
// FAULTLENS_E2E_MODE=trusted (default): Localize and everything it shows.
// FAULTLENS_E2E_MODE=untrusted: results already on disk are shown, Localize
// is refused and nothing is built or run.
"use strict";
const fs = require("fs");
const path = require("path");
const vscode = require("vscode");

// The fixture's known fault (fixtures/mid-args/ground-truth.json): mid.c:22, 0-based 21.
const FAULT_LINE = 21;
const TOP_BACKGROUND = "rgba(253, 231, 37, 0.42)"; // viridis at heat 1 (colorScale.ts)

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

async function waitFor(what, fn, timeoutMs = 30000) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${describe(last)})`);
    await sleep(200);
  }
}

function describe(v) {
  if (v instanceof Error) return v.message;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

/** A diagnostic's code, whether plain or with a link ({ value, target }). */
function codeOf(d) {
  return d.code !== null && typeof d.code === "object" ? String(d.code.value) : String(d.code);
}

/** Live `faultlens` processes started by this extension host (Linux /proc). */
function serverChildren() {
  const found = [];
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      // pid (comm) state ppid ...; comm may contain spaces, so split after the last ')'.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (comm === "faultlens" && Number(fields[1]) === process.pid && fields[0] !== "Z") found.push(Number(pid));
    } catch {
      /* the process ended while we looked */
    }
  }
  return found;
}

function hoverText(hovers) {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === "string" ? c : c.value))
    .join("\n");
}

exports.run = async function run() {
  const out = process.env.FAULTLENS_E2E_RESULTS;
  const mode = process.env.FAULTLENS_E2E_MODE || "trusted";
  const results = [];
  const check = async (name, fn) => {
    const started = Date.now();
    try {
      await fn();
      results.push({ name: `${mode}: ${name}`, ok: true, ms: Date.now() - started });
    } catch (e) {
      results.push({ name: `${mode}: ${name}`, ok: false, ms: Date.now() - started, error: e && e.stack ? e.stack : String(e) });
    }
  };
  try {
    if (mode === "untrusted") await untrusted(check);
    else if (mode === "multifile") await multifile(check);
    else await trusted(check);
  } catch (e) {
    results.push({ name: `${mode}: suite`, ok: false, error: String(e && e.stack ? e.stack : e) });
  } finally {
    fs.writeFileSync(out, JSON.stringify({ mode, results }, null, 2));
  }
  // The extension host shuts down when run() returns, taking the decorations
  // with it: wait until the driver has taken its screenshot.
  const ack = `${out}.ack`;
  for (let i = 0; i < 100 && !fs.existsSync(ack); i++) await sleep(100);
};

async function openFixture(name = "mid.c") {
  const root = vscode.workspace.workspaceFolders[0].uri;
  const file = vscode.Uri.joinPath(root, name);
  const doc = await vscode.workspace.openTextDocument(file);
  const editor = await vscode.window.showTextDocument(doc);
  const ext = vscode.extensions.getExtension("faultlens.faultlens");
  assert(ext, "the faultlens extension is not installed");
  const api = await ext.activate();
  await api.ready;
  return { root, file, doc, editor, api };
}

async function trusted(check) {
  assert(vscode.workspace.isTrusted, "this mode needs a trusted workspace");
  let ctx;
  await check("extension activates and starts the server", async () => {
    const c = await openFixture();
    await waitFor("the server to run", () => c.api.serverRunning(), 30000);
    assert(/faultlens$/.test(c.api.serverPath() || ""), `server path ${c.api.serverPath()}`);
    ctx = c;
  });
  if (!ctx) return; // nothing below can pass without a server
  const { api, file } = ctx;
  const resultsFile = path.join(ctx.root.fsPath, ".faultlens", "results.json");

  await check("before any run the status says there are no results", async () => {
    assert(!fs.existsSync(resultsFile), "the fixture copy already has results");
    await waitFor("status noResults", () => api.status().state === "noResults", 15000);
    assert(/no results/.test(api.statusBarText()), `status bar: ${api.statusBarText()}`);
  });

  let ran = false;
  await check("Localize builds, runs the tests and ranks", async () => {
    await vscode.commands.executeCommand("faultlens.runLocalize");
    await waitFor("status done with scores", () => api.status().state === "done" && api.scores() !== undefined, 180000);
    const s = api.status();
    assert(s.failing === 3 && s.total === 15, `status ${describe(s)}`);
    assert(fs.existsSync(resultsFile), "no .faultlens/results.json after the run");
    ran = true;
  });
  if (!ran) return; // the remaining checks look at the run's results

  await check("status bar shows the failing tests", async () => {
    assert(/3 failing of 15/.test(api.statusBarText()), `status bar: ${api.statusBarText()}`);
  });

  await check("status bar showed the run's progress while it ran", async () => {
    const history = api.statusBarHistory();
    assert(history.some((t) => /faultlens: running \d+%/.test(t)), `status bar history: ${describe(history)}`);
  });

  await check("a warning diagnostic marks the faulty line as #1", async () => {
    const diags = await waitFor(
      "faultlens diagnostics",
      () => {
        const d = vscode.languages.getDiagnostics(file).filter((x) => x.source === "faultlens");
        return d.length > 0 ? d : undefined;
      },
      15000,
    );
    const top = diags.find((d) => d.range.start.line === FAULT_LINE);
    assert(top, `no diagnostic on line ${FAULT_LINE + 1}: ${describe(diags.map((d) => [d.range.start.line, d.message]))}`);
    assert(top.severity === vscode.DiagnosticSeverity.Warning, `severity ${top.severity}`);
    assert(/^#1 of \d+ suspicious lines: Ochiai 0\.87/.test(top.message), `message: ${top.message}`);
    assert(codeOf(top) === "ochiai", `code ${describe(top.code)}`);
    const others = diags.filter((d) => d.range.start.line !== FAULT_LINE);
    assert(others.every((d) => !/^#1 of/.test(d.message)), "another line is also #1");
  });

  await check("code lenses: the rank on the faulty line, a re-run lens at the top", async () => {
    const lenses = await vscode.commands.executeCommand("vscode.executeCodeLensProvider", file);
    const titles = lenses.filter((l) => l.command).map((l) => [l.range.start.line, l.command.title]);
    const top = titles.find(([line]) => line === FAULT_LINE);
    assert(top, `no lens on line ${FAULT_LINE + 1}: ${describe(titles)}`);
    assert(/^#1 · Ochiai 0\.87 · 3\/3 failing · 1\/12 passing$/.test(top[1]), `lens: ${top[1]}`);
    assert(titles.some(([, t]) => /^3 failing tests · re-run and localize$/.test(t)), `no file lens: ${describe(titles)}`);
  });

  await check("hover on the faulty line explains its rank", async () => {
    const hovers = await vscode.commands.executeCommand("vscode.executeHoverProvider", file, new vscode.Position(FAULT_LINE, 12));
    const text = hoverText(hovers);
    assert(/faultlens/.test(text) && /#1 of \d+ suspicious lines/.test(text), `hover: ${text}`);
    assert(/Run by 3 of 3 failing and 1 of 12 passing tests/.test(text), `hover: ${text}`);
  });

  const diagnosisFile = path.join(ctx.root.fsPath, ".faultlens", "diagnosis.json");
  await check("after Localize the server diagnoses in the background and marks the faulty statement", async () => {
    const status = await waitFor("the diagnosis to end", () => {
      const d = api.status().diagnosis;
      return d && (d.state === "done" || d.state === "error") ? d : undefined;
    }, 120000);
    assert(status.state === "done", `diagnosis: ${describe(status)}`);
    assert(fs.existsSync(diagnosisFile), "no .faultlens/diagnosis.json");
    const diags = await waitFor(
      "a diagnosis diagnostic on the faulty line",
      () => vscode.languages.getDiagnostics(file).filter((d) => codeOf(d) === "diagnosis" && d.range.start.line === FAULT_LINE)[0],
      15000,
    );
    // "optimal among the paths explored" when the budget ended the search first.
    assert(/^diagnosis #\d+ \(cost \d+, (optimal( among the paths explored)?|minimal)\): changing this statement/.test(diags.message), `message: ${diags.message}`);
  });

  await check("the engine's verified angelic values at the fault are inlay hints", async () => {
    const doc = JSON.parse(fs.readFileSync(diagnosisFile, "utf8"));
    const values = doc.diagnoses.flatMap((d) => d.angelic).filter((a) => a.verified && a.file === "mid.c" && a.line === FAULT_LINE + 1);
    assert(values.length > 0, `the engine found no verified angelic value at mid.c:22: ${describe(doc.diagnoses)}`);
    const range = new vscode.Range(0, 0, ctx.doc.lineCount, 0);
    const hints = await vscode.commands.executeCommand("vscode.executeInlayHintProvider", file, range);
    const hint = hints.find((h) => h.position.line === FAULT_LINE);
    const label = hint && (typeof hint.label === "string" ? hint.label : hint.label.map((p) => p.value).join(""));
    assert(label && values.every((a) => label.includes(a.test)), `hint ${describe(label)} for ${describe(values)}`);
  });

  await check("with the engine's diagnosis of this run, the heatmap and the view rank by fusion", async () => {
    await waitFor("scores by fusion", () => api.scores() && api.scores().measure === "fusion", 15000);
    const painted = await waitFor("painted lines", () => (api.heatmap().length > 0 ? api.heatmap() : undefined), 10000);
    const top = painted.find((p) => p.line === FAULT_LINE);
    assert(top && top.heat === 1 && top.after.trim() === "#1", `top under fusion: ${describe(top)}`);
    const first = api.tree()[0].children[0];
    assert(/^#1  [23]\.\d\d  mid\.c:22$/.test(first.label), `first under fusion ${describe(first)}`);
  });

  await check("a diagnosis written by another tool shows in hover and inlay hints", async () => {
    const doc = {
      diagnoses: [
        {
          cost: 1,
          kind: "optimal",
          statements: [{ file: "mid.c", line: FAULT_LINE + 1, text: "return c;" }],
          angelic: [{ test: "wide-first-middle", file: "mid.c", line: FAULT_LINE + 1, instance: 1, value: 5, text: "5", role: "value", verified: true }],
        },
      ],
      complete: true,
      failing_tests: ["first-middle-last-largest", "negative-first-middle", "wide-first-middle"],
      stats: { first_ms: 1, total_ms: 2, sat_calls: 1, variables: 1, clauses: 1, paths: 3 },
    };
    fs.writeFileSync(`${diagnosisFile}.tmp`, JSON.stringify(doc, null, 2));
    fs.renameSync(`${diagnosisFile}.tmp`, diagnosisFile);
    // It names no run, so it is not fused with this one: Ochiai again.
    await waitFor("scores by ochiai", () => api.scores() && api.scores().measure === "ochiai", 15000);
    const range = new vscode.Range(0, 0, ctx.doc.lineCount, 0);
    const hint = await waitFor(
      "the new inlay hint",
      async () => {
        const hints = await vscode.commands.executeCommand("vscode.executeInlayHintProvider", file, range);
        return hints.find((h) => h.position.line === FAULT_LINE && (typeof h.label === "string" ? h.label : "") === "⟵ 5 makes wide-first-middle pass");
      },
      15000,
    );
    assert(hint.position.character === ctx.doc.lineAt(FAULT_LINE).text.length, `hint at ${describe(hint.position)}`);
    const hovers = await vscode.commands.executeCommand("vscode.executeHoverProvider", file, new vscode.Position(FAULT_LINE, 12));
    const text = hoverText(hovers);
    assert(/mid\.c:22 \(1st run\) = 5 makes wide-first-middle pass/.test(text), `hover: ${text}`);
    const lenses = await vscode.commands.executeCommand("vscode.executeCodeLensProvider", file);
    assert(
      lenses.some((l) => l.range.start.line === FAULT_LINE && l.command && l.command.command === "faultlens.diagnose"),
      `lenses ${describe(lenses.map((l) => l.command && l.command.title))}`,
    );
  });

  await check("heatmap: the top line has the hottest colour and the label #1", async () => {
    const painted = await waitFor("painted lines", () => (api.heatmap().length > 0 ? api.heatmap() : undefined), 10000);
    const top = painted.find((p) => p.line === FAULT_LINE);
    assert(top, `line ${FAULT_LINE + 1} not painted: ${describe(painted.map((p) => p.line))}`);
    assert(top.heat === 1 && top.background === TOP_BACKGROUND && top.overviewRuler === "#fde725", `top: ${describe(top)}`);
    assert(top.after.trim() === "#1", `label ${describe(top.after)}`);
    const rest = painted.filter((p) => p.line !== FAULT_LINE);
    assert(rest.length > 0 && rest.every((p) => p.heat < 1 && p.background !== TOP_BACKGROUND), "other lines look like the top one");
    const backgrounds = new Set(painted.map((p) => p.background));
    assert(backgrounds.size >= 3, `only ${backgrounds.size} distinct colours`);
    const scored = api.scores().files.flatMap((f) => f.lines).length;
    assert(painted.length === scored, `${painted.length} painted, ${scored} scored`);
  });

  await check("Suspicious Lines view lists the ranked lines, the fault first", async () => {
    const roots = api.tree();
    assert(roots.length === 1 && roots[0].kind === "file" && roots[0].label === "mid.c", `roots ${describe(roots.map((r) => r.label))}`);
    const first = roots[0].children[0];
    assert(first.label === "#1  0.87  mid.c:22" && first.description === "return c;", `first ${describe(first)}`);
    assert(roots[0].children[1].label.startsWith("#2  0.77  mid.c:20"), `second ${roots[0].children[1].label}`);
    assert(/^\d+ lines, best #1$/.test(roots[0].description), roots[0].description);
  });

  await check("the view can list lines flat", async () => {
    await vscode.commands.executeCommand("faultlens.toggleGrouping");
    await waitFor("a flat tree", () => api.tree()[0] && api.tree()[0].kind === "line", 5000);
    assert(api.tree()[0].line === FAULT_LINE, "flat list does not start with the fault");
    await vscode.commands.executeCommand("faultlens.toggleGrouping");
    await waitFor("a grouped tree", () => api.tree()[0] && api.tree()[0].kind === "file", 5000);
  });

  await check("the Tests view lists the run's tests, the failing ones with where they are", async () => {
    await vscode.commands.executeCommand("faultlens.tests.focus");
    await waitFor("the Tests view's 15 tests", () => api.tests().length === 15, 15000);
    const failing = api.tests().filter((t) => t.failed);
    assert(failing.length === 3, `failing ${describe(failing.map((t) => t.label))}`);
    assert(
      failing.every((t) => t.kind === "test" && t.location && t.location.file === "faultlens.toml"),
      describe(failing),
    );
    assert(failing[0].description.startsWith("failed"), describe(failing[0]));
  });

  await check("Show Ranking returns the CLI's ranking", async () => {
    const ranking = await vscode.commands.executeCommand("faultlens.showRanking");
    await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    assert(ranking && ranking.measure === "ochiai", `ranking ${describe(ranking && ranking.measure)}`);
    assert(ranking.tests.failed === 3 && ranking.tests.total === 15, describe(ranking.tests));
    assert(ranking.ranking[0].file === "mid.c" && ranking.ranking[0].line === 22, describe(ranking.ranking[0]));
  });

  await check("Show Failing Tests lists the tests that ran the cursor's line", async () => {
    const editor = await vscode.window.showTextDocument(ctx.doc);
    editor.selection = new vscode.Selection(FAULT_LINE, 0, FAULT_LINE, 0);
    const tests = await vscode.commands.executeCommand("faultlens.showFailingTestsHere");
    await vscode.commands.executeCommand("workbench.action.closeQuickOpen");
    const names = (tests || []).map((t) => t.name).sort();
    assert(
      describe(names) === describe(["first-middle-last-largest", "negative-first-middle", "wide-first-middle"]),
      `tests ${describe(names)}`,
    );
  });

  await check("Choose Measure re-ranks with DStar", async () => {
    await vscode.commands.executeCommand("faultlens.chooseMeasure", "dstar");
    await waitFor("scores by dstar", () => api.scores() && api.scores().measure === "dstar", 15000);
    const diags = await waitFor(
      "DStar diagnostics",
      () => {
        const d = vscode.languages.getDiagnostics(file).filter((x) => x.source === "faultlens" && codeOf(x) === "dstar");
        return d.length > 0 ? d : undefined;
      },
      15000,
    );
    assert(diags.some((d) => d.range.start.line === FAULT_LINE && /^#1 of/.test(d.message)), "the fault is not #1 under DStar");
    await vscode.commands.executeCommand("faultlens.chooseMeasure", "ochiai");
    await waitFor("scores by ochiai", () => api.scores() && api.scores().measure === "ochiai", 15000);
  });

  await check("Choose Measure BlockRank re-ranks over the control-flow graph", async () => {
    await vscode.commands.executeCommand("faultlens.chooseMeasure", "blockrank");
    try {
      await waitFor("scores by blockrank", () => api.scores() && api.scores().measure === "blockrank", 30000);
      await waitFor("BlockRank diagnostics", () => vscode.languages.getDiagnostics(file).some((d) => d.source === "faultlens" && codeOf(d) === "blockrank"), 15000);
      assert(api.tree().length === 1 && api.tree()[0].children.length > 0, "empty view under BlockRank");
      assert(api.heatmap().length > 0, "no heatmap under BlockRank");
    } finally {
      await vscode.commands.executeCommand("faultlens.chooseMeasure", "ochiai");
      await waitFor("scores by ochiai", () => api.scores() && api.scores().measure === "ochiai", 15000);
    }
  });

  await check("Toggle Heatmap hides and shows the colours", async () => {
    await vscode.commands.executeCommand("faultlens.toggleHeatmap");
    await waitFor("no painted lines", () => !api.heatmapEnabled() && api.heatmap().length === 0, 5000);
    await vscode.commands.executeCommand("faultlens.toggleHeatmap");
    await waitFor("painted lines again", () => api.heatmapEnabled() && api.heatmap().length > 0, 5000);
  });

  await check("the topN setting reaches the server", async () => {
    const cfg = () => vscode.workspace.getConfiguration("faultlens");
    // Ranked lines only: topN does not limit the diagnosis's diagnostics.
    const count = () => vscode.languages.getDiagnostics(file).filter((d) => d.source === "faultlens" && codeOf(d) !== "diagnosis").length;
    const before = count();
    assert(before > 3, `only ${before} diagnostics before`);
    await cfg().update("topN", 3, vscode.ConfigurationTarget.Global);
    await waitFor("three diagnostics", () => count() === 3, 10000);
    await cfg().update("topN", undefined, vscode.ConfigurationTarget.Global);
    await waitFor(`${before} diagnostics again`, () => count() === before, 10000);
  });

  await check("autoRunOnSave runs Localize when a C file is saved", async () => {
    const cfg = () => vscode.workspace.getConfiguration("faultlens");
    const resultsBefore = fs.statSync(resultsFile).mtimeMs;
    await cfg().update("autoRunOnSave", true, vscode.ConfigurationTarget.Global);
    try {
      const editor = await vscode.window.showTextDocument(ctx.doc);
      const end = editor.document.lineAt(editor.document.lineCount - 1).range.end;
      await editor.edit((b) => b.insert(end, "\n/* saved by the e2e test */\n"));
      await editor.document.save();
      await waitFor("a new results file", () => fs.statSync(resultsFile).mtimeMs > resultsBefore, 60000);
      await waitFor("status done", () => api.status().state === "done", 60000);
      assert(api.status().failing === 3, describe(api.status()));
    } finally {
      await cfg().update("autoRunOnSave", undefined, vscode.ConfigurationTarget.Global);
    }
  });

  await check("a failing task of the test group re-localizes, and the status says the task started it", async () => {
    const resultsBefore = fs.statSync(resultsFile).mtimeMs;
    const task = new vscode.Task(
      { type: "shell" },
      vscode.TaskScope.Workspace,
      "my unit tests",
      "e2e",
      new vscode.ShellExecution("./check-everything.sh || exit 3"),
    );
    task.group = vscode.TaskGroup.Test;
    await vscode.tasks.executeTask(task);
    await waitFor("a new results file", () => fs.statSync(resultsFile).mtimeMs > resultsBefore, 90000);
    await waitFor(
      "a status naming the task",
      () => api.status().state === "done" && /as a task failed \(exit code 3\)/.test(api.status().message),
      60000,
    );
    assert(api.status().failing === 3, describe(api.status()));
  });

  await check("editing a ranked line marks it stale everywhere", async () => {
    const editor = await vscode.window.showTextDocument(ctx.doc);
    await editor.edit((b) => b.insert(new vscode.Position(FAULT_LINE, editor.document.lineAt(FAULT_LINE).text.length), " /* edited */"));
    await waitFor("a stale scored line", () => api.scores().files.some((f) => f.lines.some((l) => l.stale)), 10000);
    await waitFor("status stale", () => api.status().state === "stale", 10000);
    assert(/stale/.test(api.statusBarText()), `status bar ${api.statusBarText()}`);
    const staleRow = api.tree()[0].children.find((c) => c.line === FAULT_LINE);
    assert(staleRow && staleRow.stale && /\(stale\)$/.test(staleRow.label), `row ${describe(staleRow)}`);
    const painted = api.heatmap().find((p) => p.line === FAULT_LINE);
    assert(painted && painted.stale && /stale/.test(painted.after), `painted ${describe(painted)}`);
    // The server keeps lines edited since the run stale even when the edit is undone, until the next run.
    await vscode.commands.executeCommand("workbench.action.files.revert");
  });

  await check("a build failure shows as an error in the status bar and a compiler diagnostic", async () => {
    const editor = await vscode.window.showTextDocument(ctx.doc);
    const line = editor.document.lineAt(FAULT_LINE);
    const semicolon = line.text.lastIndexOf(";");
    assert(semicolon > 0, `line ${FAULT_LINE + 1} is ${line.text}`);
    await editor.edit((b) => b.delete(new vscode.Range(FAULT_LINE, semicolon, FAULT_LINE, semicolon + 1)));
    await editor.document.save();
    try {
      await vscode.commands.executeCommand("faultlens.runLocalize");
      await waitFor("status error", () => api.status().state === "error", 60000);
      assert(/error/.test(api.statusBarText()), `status bar ${api.statusBarText()}`);
      const build = await waitFor(
        "a build diagnostic",
        () => vscode.languages.getDiagnostics(file).find((d) => /build failed/.test(d.message)),
        15000,
      );
      assert(build.severity === vscode.DiagnosticSeverity.Error, `severity ${build.severity}`);
    } finally {
      const fix = await vscode.window.showTextDocument(ctx.doc);
      await fix.edit((b) => b.insert(new vscode.Position(FAULT_LINE, semicolon), ";"));
      await fix.document.save();
    }
    await vscode.commands.executeCommand("faultlens.runLocalize");
    await waitFor("status done after fixing the build", () => api.status().state === "done", 60000);
  });

  await check("a wrong serverPath says so; fixing it starts the server again", async () => {
    const cfg = () => vscode.workspace.getConfiguration("faultlens");
    // A workspace value: it outranks the machine settings the harness wrote.
    await cfg().update("serverPath", "/nonexistent/faultlens", vscode.ConfigurationTarget.Workspace);
    try {
      await waitFor("status notFound", () => api.status() === "notFound", 15000);
      assert(/no server/.test(api.statusBarText()), `status bar ${api.statusBarText()}`);
      assert(!api.serverRunning(), "a server still runs");
    } finally {
      await cfg().update("serverPath", undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitFor("the server to run again", () => api.serverRunning(), 30000);
    await waitFor("status done", () => api.status().state === "done", 30000);
  });

  await check("Restart Language Server comes back with the results from disk, one server process", async () => {
    const before = serverChildren();
    assert(before.length === 1, `server processes before: ${describe(before)}`);
    await vscode.commands.executeCommand("faultlens.restartServer");
    await waitFor("the server to run again", () => api.serverRunning(), 30000);
    await waitFor("status done after restart", () => api.status().state === "done" && api.tree().length === 1, 30000);
    await waitFor("exactly one new server process", () => {
      const now = serverChildren();
      return now.length === 1 && now[0] !== before[0];
    }, 10000);
  });
}

async function untrusted(check) {
  let ctx;
  await check("the workspace is untrusted and the extension still activates", async () => {
    assert(!vscode.workspace.isTrusted, "the workspace is trusted");
    const c = await openFixture();
    await waitFor("the server to run", () => c.api.serverRunning(), 30000);
    ctx = c;
  });
  if (!ctx) return;
  const { api, file } = ctx;
  const resultsFile = path.join(ctx.root.fsPath, ".faultlens", "results.json");

  await check("existing results are shown read-only", async () => {
    await waitFor("status done from disk", () => api.status().state === "done", 20000);
    assert(/3 failing of 15/.test(api.statusBarText()) && /shield/.test(api.statusBarText()), `status bar ${api.statusBarText()}`);
    const diags = vscode.languages.getDiagnostics(file).filter((d) => d.source === "faultlens");
    assert(diags.some((d) => d.range.start.line === FAULT_LINE && /^#1 of/.test(d.message)), "no #1 diagnostic");
    assert(api.tree().length === 1, "empty view");
    assert(api.heatmap().some((p) => p.line === FAULT_LINE && p.heat === 1), "no heatmap");
  });

  await check("Localize is refused: nothing is built or run", async () => {
    const before = fs.statSync(resultsFile).mtimeMs;
    const answer = await vscode.commands.executeCommand("faultlens.runLocalize");
    assert(answer === undefined, `the server was asked: ${describe(answer)}`);
    // The server's own command, as a code lens would call it, is blocked by the client too.
    const viaLens = await vscode.commands.executeCommand("faultlens.localize");
    assert(viaLens === undefined, `faultlens.localize reached the server: ${describe(viaLens)}`);
    await sleep(3000);
    assert(api.status().state !== "running", "a run started");
    assert(fs.statSync(resultsFile).mtimeMs === before, "results.json was rewritten");
  });

  await check("the re-run lens says the workspace is not trusted", async () => {
    const lenses = await vscode.commands.executeCommand("vscode.executeCodeLensProvider", file);
    const titles = lenses.filter((l) => l.command).map((l) => l.command.title);
    assert(titles.some((t) => /not trusted/.test(t)), `lenses ${describe(titles)}`);
  });

  await check("granting trust restarts the server, and then Localize runs", async () => {
    // There is no API to grant trust: the driver clicks "Trust" in the workbench when asked.
    const granted = new Promise((resolve) => vscode.workspace.onDidGrantWorkspaceTrust(() => resolve(true)));
    fs.writeFileSync(`${process.env.FAULTLENS_E2E_RESULTS}.need-trust`, "");
    await waitFor("workspace trust", () => vscode.workspace.isTrusted, 60000);
    await granted;
    await waitFor("the server to run again", () => api.serverRunning(), 30000);
    await waitFor("status done", () => api.status().state === "done", 30000);
    assert(!/shield/.test(api.statusBarText()), `status bar ${api.statusBarText()}`);
    const before = fs.statSync(resultsFile).mtimeMs;
    const answer = await vscode.commands.executeCommand("faultlens.runLocalize");
    assert(answer && answer.started === true, `Localize answer ${describe(answer)}`);
    await waitFor("a new results file", () => fs.statSync(resultsFile).mtimeMs > before, 60000);
    await waitFor("status done", () => api.status().state === "done", 60000);
  });
}

// fixtures/multi-file-helper: the fault is roman.c:19, tied with 8 other roman.c
// lines for ranks 1-9; main.c and numparse.c lines rank lower.
async function multifile(check) {
  let ctx;
  await check("Localize on a three-file project", async () => {
    const c = await openFixture("roman.c");
    await waitFor("the server to run", () => c.api.serverRunning(), 30000);
    await vscode.commands.executeCommand("faultlens.runLocalize");
    await waitFor("status done", () => c.api.status().state === "done" && c.api.scores() !== undefined, 180000);
    assert(c.api.status().failing === 4 && c.api.status().total === 16, describe(c.api.status()));
    ctx = c;
  });
  if (!ctx) return;
  const { api } = ctx;

  await check("the view groups lines by file, the file with the best lines first", async () => {
    const roots = api.tree();
    const labels = roots.map((r) => r.label);
    assert(labels[0] === "roman.c", `files ${describe(labels)}`);
    assert([...labels].sort().join() === ["main.c", "numparse.c", "roman.c"].join(), `files ${describe(labels)}`);
    assert(/best #1–9$/.test(roots[0].description), roots[0].description);
    const fault = roots[0].children.find((c) => c.line === 18);
    assert(fault && fault.label.startsWith("#1–9  0.55  roman.c:19"), `fault row ${describe(fault)}`);
    assert(roots[0].children.slice(0, 9).every((c) => c.label.startsWith("#1–9")), "the tie group is not listed first");
    const scored = api.scores().files.reduce((n, f) => n + f.lines.length, 0);
    assert(roots.reduce((n, r) => n + r.children.length, 0) === scored, "rows and scored lines differ");
  });

  await check("flat, the tie group comes first and files mix by rank", async () => {
    await vscode.commands.executeCommand("faultlens.toggleGrouping");
    try {
      await waitFor("a flat tree", () => api.tree()[0] && api.tree()[0].kind === "line", 5000);
      const rows = api.tree();
      assert(rows.slice(0, 9).every((r) => r.uri.endsWith("/roman.c") && r.label.startsWith("#1–9")), describe(rows.slice(0, 9).map((r) => r.label)));
      const ranks = rows.map((r) => Number(/^#(\d+)/.exec(r.label)[1]));
      assert(ranks.every((r, i) => i === 0 || r >= ranks[i - 1]), `not in rank order: ${describe(ranks)}`);
      assert(new Set(rows.map((r) => r.uri)).size === 3, "not all three files in the flat list");
    } finally {
      await vscode.commands.executeCommand("faultlens.toggleGrouping");
    }
  });

  await check("a tie shows as a range on the line; the whole group gets the same, hottest colour", async () => {
    const painted = await waitFor("painted lines", () => (api.heatmap().length > 0 ? api.heatmap() : undefined), 10000);
    const fault = painted.find((p) => p.line === 18);
    assert(fault && fault.after.trim() === "#1–9", `fault ${describe(fault)}`);
    // The server derives heat from the average rank (5 for ranks 1-9), so a tie at the top is just below 1.
    const maxHeat = Math.max(...painted.map((p) => p.heat));
    const group = painted.filter((p) => p.after.trim() === "#1–9");
    assert(group.length === 9, `${group.length} lines labelled #1–9`);
    assert(group.every((p) => p.heat === maxHeat && p.background === fault.background), describe(group));
    assert(painted.filter((p) => p.background === fault.background).length === 9, "other lines share the top colour");
  });
}
