// The shapes the faultlens language server sends (see notes/contracts.md), and
// tolerant parsers for them: a malformed field from a newer or buggy server
// degrades one line, never the whole view. No `vscode` import: unit-tested.

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

/** `faultlens/status` notification. */
export interface StatusParams {
  state: ServerState;
  message: string;
  failing?: number;
  total?: number;
  /** The background diagnosis: "running" | "done" | "error" | "none", and what it found or why it failed. */
  diagnosis?: { state: string; message: string };
}

/** One entry of the `faultlens/ranking` response (the CLI's `--format json`). */
export interface RankingEntry {
  file: string;
  /** 1-based. */
  line: number;
  text: string;
  score: number;
  rank: RankRange;
  ef: number;
  ep: number;
}

export interface RankingTest {
  name: string;
  verdict: "pass" | "fail";
  outcome?: string;
  duration_ms?: number;
  reason?: string;
}

export interface RankingResponse {
  measure: string;
  tests: { total: number; failed: number; list: RankingTest[] };
  ranking: RankingEntry[];
}

/** One entry of the `faultlens.showFailingTests` command's result. */
export interface FailingTest {
  name: string;
  reason?: string;
  location?: unknown;
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
  if (isObject(o.diagnosis) && typeof o.diagnosis.state === "string") {
    status.diagnosis = { state: o.diagnosis.state, message: str(o.diagnosis.message, "") };
  }
  return status;
}

export function parseRanking(raw: unknown): RankingResponse {
  const o = isObject(raw) ? raw : {};
  const t = isObject(o.tests) ? o.tests : {};
  const list: RankingTest[] = (Array.isArray(t.list) ? t.list : []).filter(isObject).map((x) => ({
    name: str(x.name, "?"),
    verdict: x.verdict === "fail" ? "fail" : "pass",
    outcome: typeof x.outcome === "string" ? x.outcome : undefined,
    duration_ms: typeof x.duration_ms === "number" ? x.duration_ms : undefined,
    reason: typeof x.reason === "string" ? x.reason : undefined,
  }));
  const ranking: RankingEntry[] = (Array.isArray(o.ranking) ? o.ranking : []).filter(isObject).map((x) => ({
    file: str(x.file, "?"),
    line: num(x.line, 1),
    text: str(x.text, ""),
    score: num(x.score, 0),
    rank: parseRank(x.rank),
    ef: num(x.ef, 0),
    ep: num(x.ep, 0),
  }));
  return {
    measure: str(o.measure, ""),
    tests: { total: num(t.total, list.length), failed: num(t.failed, list.filter((x) => x.verdict === "fail").length), list },
    ranking,
  };
}

export function parseFailingTests(raw: unknown): FailingTest[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter(isObject).map((x) => ({
    name: str(x.name, "?"),
    reason: typeof x.reason === "string" ? x.reason : undefined,
    location: x.location,
  }));
}
