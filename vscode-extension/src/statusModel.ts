// What the status bar item says for each server state. No `vscode` import: unit-tested.
import type { StatusParams } from "./protocol";

/** Client-side states the server cannot report (it is not running). */
export type ClientState = "starting" | "notFound" | "stopped";

export interface StatusPresentation {
  text: string;
  tooltip: string;
  /** Drives the item's background: warning/error use the theme's status colours. */
  severity: "normal" | "warning" | "error";
}

function counts(s: StatusParams): string {
  if (s.failing === undefined) return "";
  if (s.total === undefined) return `${s.failing} failing`;
  return `${s.failing} failing of ${s.total}`;
}

/** The latest work-done progress report of a run (LSP `$/progress`). */
export interface RunProgress {
  percentage?: number;
  message?: string;
}

/**
 * `trusted` false marks results shown read-only in an untrusted workspace;
 * `progress` is the running build/test step, shown while the state is "running".
 */
export function presentStatus(s: StatusParams | ClientState, trusted = true, progress?: RunProgress): StatusPresentation {
  if (progress !== undefined && typeof s !== "string" && s.state === "running") {
    const pct = progress.percentage !== undefined ? ` ${Math.round(progress.percentage)}%` : "";
    const step = progress.message ?? s.message;
    return { text: `$(sync~spin) faultlens: running${pct}`, tooltip: `faultlens: ${step}`, severity: "normal" };
  }
  const p = present(s);
  if (!trusted && typeof s !== "string" && (s.state === "done" || s.state === "stale")) {
    return { ...p, text: `${p.text} $(shield)`, tooltip: `${p.tooltip}\nThe workspace is not trusted: results are read from disk, nothing is built or run.` };
  }
  return p;
}

function present(s: StatusParams | ClientState): StatusPresentation {
  const name = "faultlens";
  if (typeof s === "string") {
    switch (s) {
      case "starting":
        return { text: `$(loading~spin) ${name}`, tooltip: "faultlens: starting the language server", severity: "normal" };
      case "notFound":
        return {
          text: `$(error) ${name}: no server`,
          tooltip: "faultlens: the language server binary was not found. Click for details.",
          severity: "error",
        };
      case "stopped":
        return { text: `$(debug-disconnect) ${name}: stopped`, tooltip: "faultlens: the language server stopped. See the log.", severity: "error" };
    }
  }
  const detail = s.message !== "" ? s.message : undefined;
  switch (s.state) {
    case "running":
      // The server reports step-by-step progress as LSP work-done progress, which VS Code shows beside this item.
      return { text: `$(sync~spin) ${name}: running`, tooltip: `faultlens: ${detail ?? "localizing"}`, severity: "normal" };
    case "done": {
      const c = counts(s);
      const text = s.failing === 0 ? `$(pass) ${name}: no failing tests` : `$(bug) ${name}: ${c !== "" ? c : "done"}`;
      return { text, tooltip: `faultlens: ${detail ?? c}. Click to see the suspicious lines.`, severity: "normal" };
    }
    case "stale":
      return {
        text: `$(history) ${name}: stale`,
        tooltip: `faultlens: sources changed since the last run; the ranking may be out of date. Run Localize again. ${detail ?? ""}`.trim(),
        severity: "warning",
      };
    case "error":
      return { text: `$(error) ${name}: error`, tooltip: `faultlens: ${detail ?? "the last run failed"}. See the log.`, severity: "error" };
    case "untrusted":
      return {
        text: `$(shield) ${name}: restricted`,
        tooltip: "faultlens: this workspace is not trusted, so faultlens shows existing results but does not build or run tests.",
        severity: "warning",
      };
    case "noResults":
      return { text: `$(beaker) ${name}: no results`, tooltip: "faultlens: no results yet. Run Localize.", severity: "normal" };
    case "idle":
      return { text: `$(beaker) ${name}`, tooltip: `faultlens: ${detail ?? "ready"}`, severity: "normal" };
  }
}
