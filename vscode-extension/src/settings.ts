// Maps the extension's `faultlens.*` settings to what the server expects in
// initializationOptions and workspace/didChangeConfiguration. Values are
// checked here so a typo in settings.json gives the default, not a server error.
// No `vscode` import: unit-tested.

export interface ServerSettings {
  measure: string;
  topN: number;
  autoRunOnSave: boolean;
  /** Absent: the server uses the project's own `[run] timeout` (faultlens.toml), else its default. */
  timeoutSeconds?: number;
  /** Diagnose in the background after each localization with failing tests. */
  diagnose: boolean;
  /** Rank by the diagnosis's evidence first (fusion over `measure`) whenever a diagnosis of the current run exists. */
  fuseDiagnosis: boolean;
  /** Time budget of a background diagnosis. */
  diagnoseTimeLimitSeconds: number;
  /** Deterministic budget of a background diagnosis (effort units); null: the time budget alone (sent, so clearing the setting removes it). */
  diagnoseEffort: number | null;
  /** Localize again when the developer's own test run fails. */
  localizeAfterTestRuns: boolean;
  /** Command lines that run tests; null: the server's defaults (sent, so clearing the setting restores them). */
  testCommands: string[] | null;
}

export const DEFAULT_SETTINGS: ServerSettings = {
  measure: "ochiai",
  topN: 10,
  autoRunOnSave: false,
  diagnose: true,
  fuseDiagnosis: true,
  diagnoseTimeLimitSeconds: 30,
  diagnoseEffort: null,
  localizeAfterTestRuns: true,
  testCommands: null,
};

const MAX_TOP_N = 1000;
const MAX_DIAGNOSE_SECONDS = 3600;
const MAX_DIAGNOSE_EFFORT = 3600;

/** Reads a setting by its key below `faultlens.` (e.g. "topN"). */
export type SettingReader = (key: string) => unknown;

export function normalizeMeasure(v: unknown): string {
  if (typeof v !== "string") return DEFAULT_SETTINGS.measure;
  const m = v.trim().toLowerCase().replace(/_/g, "-");
  return m === "" ? DEFAULT_SETTINGS.measure : m;
}

function topN(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 1) return DEFAULT_SETTINGS.topN;
  return Math.min(MAX_TOP_N, Math.floor(v));
}

/** A usable per-test timeout, or undefined to leave the choice to the project. */
function timeout(v: unknown): number | undefined {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return undefined;
  return v;
}

/** A usable diagnosis budget, else the default. */
function diagnoseSeconds(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return DEFAULT_SETTINGS.diagnoseTimeLimitSeconds;
  return Math.min(MAX_DIAGNOSE_SECONDS, v);
}

/** A usable effort budget, else null (the time budget alone). */
function diagnoseEffort(v: unknown): number | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return null;
  return Math.min(MAX_DIAGNOSE_EFFORT, v);
}

/** A list of non-empty command lines, or null for the server's defaults. */
function testCommands(v: unknown): string[] | null {
  if (!Array.isArray(v)) return null;
  const lines = v.filter((c): c is string => typeof c === "string" && c.trim() !== "");
  return lines.length > 0 ? lines : null;
}

export function readServerSettings(get: SettingReader): ServerSettings {
  const s: ServerSettings = {
    measure: normalizeMeasure(get("measure")),
    topN: topN(get("topN")),
    autoRunOnSave: get("autoRunOnSave") === true,
    diagnose: get("diagnose") !== false,
    fuseDiagnosis: get("fuseDiagnosis") !== false,
    diagnoseTimeLimitSeconds: diagnoseSeconds(get("diagnoseTimeLimitSeconds")),
    diagnoseEffort: diagnoseEffort(get("diagnoseEffort")),
    localizeAfterTestRuns: get("localizeAfterTestRuns") !== false,
    testCommands: testCommands(get("testCommands")),
  };
  const t = timeout(get("timeoutSeconds"));
  if (t !== undefined) s.timeoutSeconds = t;
  return s;
}

/** initializationOptions: the settings plus whether the workspace is trusted. */
export function initializationOptions(s: ServerSettings, trusted: boolean): ServerSettings & { trusted: boolean } {
  return { ...s, trusted };
}

/** Params of workspace/didChangeConfiguration (`trusted` is never sent here). */
export function configurationChange(s: ServerSettings): { settings: { faultlens: ServerSettings } } {
  return { settings: { faultlens: { ...s } } };
}

/** Which setting keys (below `faultlens.`) the server cares about. */
export const SERVER_SETTING_KEYS: readonly (keyof ServerSettings)[] = [
  "measure",
  "topN",
  "autoRunOnSave",
  "timeoutSeconds",
  "diagnose",
  "fuseDiagnosis",
  "diagnoseTimeLimitSeconds",
  "diagnoseEffort",
  "localizeAfterTestRuns",
  "testCommands",
];

export interface MeasureChoice {
  id: string;
  label: string;
  description: string;
}

/** Measures offered by "Choose measure"; the server also accepts e.g. "dstar3" typed in. */
export const MEASURES: readonly MeasureChoice[] = [
  { id: "ochiai", label: "Ochiai", description: "good default for single faults" },
  { id: "dstar", label: "DStar (D*, exponent 2)", description: "often best on single faults" },
  { id: "op2", label: "Op2", description: "optimal for single faults in theory" },
  { id: "tarantula", label: "Tarantula", description: "the classic" },
  { id: "jaccard", label: "Jaccard", description: "" },
  { id: "barinel", label: "Barinel", description: "" },
  { id: "naish1", label: "Naish1", description: "" },
  { id: "kulczynski1", label: "Kulczynski1", description: "" },
  { id: "kulczynski2", label: "Kulczynski2", description: "" },
  { id: "zoltar", label: "Zoltar", description: "" },
  { id: "gp13", label: "GP13", description: "evolved by genetic programming" },
  { id: "wong1", label: "Wong1", description: "" },
  { id: "wong2", label: "Wong2", description: "" },
  { id: "wong3", label: "Wong3", description: "" },
  { id: "sbi", label: "SBI", description: "" },
  { id: "ample", label: "Ample", description: "" },
  { id: "russell-rao", label: "Russell-Rao", description: "" },
  { id: "sorensen-dice", label: "Sørensen-Dice", description: "" },
  { id: "anderberg", label: "Anderberg", description: "" },
  { id: "m2", label: "M2", description: "" },
  { id: "opt", label: "Opt", description: "Op2 order, Ochiai tie-break" },
  { id: "blockrank", label: "BlockRank", description: "ranks over the control-flow graph" },
];
