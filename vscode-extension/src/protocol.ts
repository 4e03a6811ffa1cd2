// The shapes the faultlens language server sends, as editors/lsp-extensions.md
// documents them (the server's types are server/lsp/src/protocol.rs), and
// tolerant parsers for them: a malformed field from a newer or buggy server
// degrades one line, never the whole view. test/protocol.test.ts parses the
// document's examples and requires every field back. No `vscode` import.

/**
 * Server commands that build or run tests, preprocess the sources or write
 * generated tests: never sent from an untrusted workspace.
 */
export const RUNS_CODE: ReadonlySet<string> = new Set(["faultlens.localize", "faultlens.diagnose", "faultlens.generateTests"]);

/** Whether an untrusted workspace must refuse the server command `command`. */
export function runsCode(command: string): boolean {
  return RUNS_CODE.has(command);
}

export interface RankRange {
  best: number;
  worst: number;
  average: number;
}

export interface ScoredLine {
  /** 0-based line number. */
  line: number;
  score: number;
  /** 0..1, 1 = most suspicious; continuous. */
  heat: number;
  rank: RankRange;
  ef: number;
  ep: number;
  stale: boolean;
}

export interface ScoredFile {
  uri: string;
  lines: ScoredLine[];
}

/** `faultlens/scores` notification. */
export interface ScoresParams {
  measure: string;
  files: ScoredFile[];
}

export const SERVER_STATES = ["idle", "running", "done", "error", "untrusted", "stale", "noResults"] as const;
export type ServerState = (typeof SERVER_STATES)[number];

export const DIAGNOSIS_STATES = ["running", "done", "error", "none"] as const;
export type DiagnosisState = (typeof DIAGNOSIS_STATES)[number];
export const GENERATION_STATES = ["running", "idle"] as const;
export type GenerationState = (typeof GENERATION_STATES)[number];

/** `faultlens/status` notification. */
export interface StatusParams {
  state: ServerState;
  message: string;
  failing?: number;
  total?: number;
  /** The background diagnosis, and what it found or why it failed. */
  diagnosis?: { state: DiagnosisState; message: string };
  /** Test generation (`faultlens.generateTests`). */
  generation?: { state: GenerationState; message: string };
}

/** One entry of the `faultlens/ranking` response (the CLI's `--format json`). */
export interface RankingEntry {
  file: string;
  /** 1-based. */
  line: number;
  /** The line's text, trimmed; null when the file could not be read. */
  text: string | null;
  score: number;
  rank: RankRange;
  ef: number;
  ep: number;
  nf: number;
  np: number;
  /** Tarantula's tie-breaking confidence. */
  confidence?: number;
  /** Under BlockRank: the block the line takes its score from (shown as is). */
  block?: Record<string, unknown>;
}

export interface RankingTest {
  name: string;
  verdict: "pass" | "fail";
  outcome?: string;
  duration_ms?: number;
  reason?: string;
  /** Where the test is defined (1-based line). */
  location?: { file: string; line: number };
}

export interface RankingResponse {
  faultlens_version: string;
  measure: string;
  project_root: string;
  tests: { total: number; failed: number; passed: number; list: RankingTest[] };
  lines: { ranked: number; suspicious: number };
  ranking: RankingEntry[];
  /** What the run did that its user may not expect (an executable kept whole), once per kind; absent when none. */
  notes?: RunNote[];
}

export interface RunNote {
  message: string;
  /** The tests it concerns. */
  tests: string[];
}

export interface LspPosition {
  line: number;
  character: number;
}

/** An LSP `Location`. */
export interface LspLocation {
  uri: string;
  range: { start: LspPosition; end: LspPosition };
}

/** One entry of the `faultlens.showFailingTests` command's result. */
export interface FailingTest {
  name: string;
  reason?: string;
  /** Where the test is defined. */
  location?: LspLocation;
}

/** The background jobs that report progress, by their tokens' middle part. */
export type JobKind = "run" | "diagnose" | "generate";

/** The job a `$/progress` token `faultlens/<kind>/<n>` belongs to. */
export function progressJob(token: unknown): { kind: JobKind; n: number } | undefined {
  if (typeof token !== "string") return undefined;
  const parts = token.split("/");
  if (parts.length !== 3 || parts[0] !== "faultlens" || !/^\d+$/.test(parts[2])) return undefined;
  const kind = parts[1];
  if (kind !== "run" && kind !== "diagnose" && kind !== "generate") return undefined;
  return { kind, n: Number(parts[2]) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function num(v: unknown, fallback: number): number {
  return typeof v === "number" && !Number.isNaN(v) ? v : fallback;
}

function str(v: unknown, fallback: string): string {
  return typeof v === "string" ? v : fallback;
}

function parseRank(v: unknown): RankRange {
  if (typeof v === "number") return { best: v, worst: v, average: v };
  const o = isObject(v) ? v : {};
  const best = num(o.best, Number.POSITIVE_INFINITY);
  const worst = num(o.worst, best);
  return { best, worst, average: num(o.average, (best + worst) / 2) };
}

function parseLine(v: unknown): ScoredLine | undefined {
  if (!isObject(v) || typeof v.line !== "number" || v.line < 0) return undefined;
  return {
    line: Math.floor(v.line),
    score: num(v.score, 0),
    heat: num(v.heat, 0),
    rank: parseRank(v.rank),
    ef: num(v.ef, 0),
    ep: num(v.ep, 0),
    stale: v.stale === true,
  };
}

export function parseScores(raw: unknown): ScoresParams {
  const o = isObject(raw) ? raw : {};
  const files: ScoredFile[] = [];
  for (const f of Array.isArray(o.files) ? o.files : []) {
    if (!isObject(f) || typeof f.uri !== "string") continue;
    const lines = (Array.isArray(f.lines) ? f.lines : [])
      .map(parseLine)
      .filter((l): l is ScoredLine => l !== undefined);
    files.push({ uri: f.uri, lines });
  }
  return { measure: str(o.measure, ""), files };
}

export function parseStatus(raw: unknown): StatusParams {
  const o = isObject(raw) ? raw : {};
  const state = (SERVER_STATES as readonly string[]).includes(o.state as string) ? (o.state as ServerState) : "idle";
  const status: StatusParams = { state, message: str(o.message, "") };
  if (typeof o.failing === "number") status.failing = o.failing;
  if (typeof o.total === "number") status.total = o.total;
  if (isObject(o.diagnosis) && (DIAGNOSIS_STATES as readonly unknown[]).includes(o.diagnosis.state)) {
    status.diagnosis = { state: o.diagnosis.state as DiagnosisState, message: str(o.diagnosis.message, "") };
  }
  if (isObject(o.generation) && (GENERATION_STATES as readonly unknown[]).includes(o.generation.state)) {
    status.generation = { state: o.generation.state as GenerationState, message: str(o.generation.message, "") };
  }
  return status;
}

function parseTest(x: Record<string, unknown>): RankingTest {
  const test: RankingTest = { name: str(x.name, "?"), verdict: x.verdict === "fail" ? "fail" : "pass" };
  if (typeof x.outcome === "string") test.outcome = x.outcome;
  if (typeof x.duration_ms === "number") test.duration_ms = x.duration_ms;
  if (typeof x.reason === "string") test.reason = x.reason;
  if (isObject(x.location) && typeof x.location.file === "string" && typeof x.location.line === "number") {
    test.location = { file: x.location.file, line: x.location.line };
  }
  return test;
}

function parseEntry(x: Record<string, unknown>): RankingEntry {
  const entry: RankingEntry = {
    file: str(x.file, "?"),
    line: num(x.line, 1),
    text: typeof x.text === "string" ? x.text : null,
    score: num(x.score, 0),
    rank: parseRank(x.rank),
    ef: num(x.ef, 0),
    ep: num(x.ep, 0),
    nf: num(x.nf, 0),
    np: num(x.np, 0),
  };
  if (typeof x.confidence === "number") entry.confidence = x.confidence;
  if (isObject(x.block)) entry.block = x.block;
  return entry;
}

export function parseRanking(raw: unknown): RankingResponse {
  const o = isObject(raw) ? raw : {};
  const t = isObject(o.tests) ? o.tests : {};
  const l = isObject(o.lines) ? o.lines : {};
  const list = (Array.isArray(t.list) ? t.list : []).filter(isObject).map(parseTest);
  const ranking = (Array.isArray(o.ranking) ? o.ranking : []).filter(isObject).map(parseEntry);
  const failed = num(t.failed, list.filter((x) => x.verdict === "fail").length);
  const total = num(t.total, list.length);
  const doc: RankingResponse = {
    faultlens_version: str(o.faultlens_version, ""),
    measure: str(o.measure, ""),
    project_root: str(o.project_root, ""),
    tests: { total, failed, passed: num(t.passed, total - failed), list },
    lines: { ranked: num(l.ranked, ranking.length), suspicious: num(l.suspicious, ranking.filter((e) => e.ef > 0).length) },
    ranking,
  };
  if (Array.isArray(o.notes)) {
    doc.notes = o.notes.filter(isObject).map((n) => ({
      message: str(n.message, ""),
      tests: (Array.isArray(n.tests) ? n.tests : []).filter((x): x is string => typeof x === "string"),
    }));
  }
  return doc;
}

function parsePosition(v: unknown): LspPosition | undefined {
  if (!isObject(v) || typeof v.line !== "number" || typeof v.character !== "number") return undefined;
  return { line: v.line, character: v.character };
}

function parseLocation(v: unknown): LspLocation | undefined {
  if (!isObject(v) || typeof v.uri !== "string" || !isObject(v.range)) return undefined;
  const start = parsePosition(v.range.start);
  const end = parsePosition(v.range.end);
  return start && end ? { uri: v.uri, range: { start, end } } : undefined;
}

export function parseFailingTest(x: unknown): FailingTest | undefined {
  if (!isObject(x)) return undefined;
  const test: FailingTest = { name: str(x.name, "?") };
  if (typeof x.reason === "string") test.reason = x.reason;
  const location = parseLocation(x.location);
  if (location) test.location = location;
  return test;
}

export function parseFailingTests(raw: unknown): FailingTest[] {
  if (!Array.isArray(raw)) return [];
  return raw.map(parseFailingTest).filter((t): t is FailingTest => t !== undefined);
}

/** `faultlens/testRunEnded` (client → server): a command the developer ran ended. */
export const TEST_RUN_ENDED = "faultlens/testRunEnded";

export interface TestRunEndedParams {
  commandLine: string;
  cwd?: string;
  exitCode?: number;
  source: "terminal" | "task";
  /** A task of the `test` group: a test run whatever its command. */
  testGroup?: boolean;
}

/** The params for an ended command, leaving out what the editor could not tell. */
export function testRunEnded(
  commandLine: string,
  source: "terminal" | "task",
  exitCode: number | undefined,
  cwd: string | undefined,
  testGroup = false,
): TestRunEndedParams {
  // Keys in the documented order (lsp-extensions.md's examples).
  const p: TestRunEndedParams = { commandLine } as TestRunEndedParams;
  if (cwd !== undefined) p.cwd = cwd;
  if (exitCode !== undefined) p.exitCode = exitCode;
  p.source = source;
  if (testGroup) p.testGroup = true;
  return p;
}
