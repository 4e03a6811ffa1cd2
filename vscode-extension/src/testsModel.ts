// The Tests view as plain data: the last run's tests, with the cases of a
// unit-test executable (named `EXECUTABLE::CASE` by the server) grouped under
// their executable. No `vscode` import: unit-tested.
import type { RankingTest } from "./protocol";

export interface TestNode {
  kind: "test";
  /** The full name, as the server and the CLI print it. */
  name: string;
  /** The case's own part under a group, else the full name. */
  label: string;
  failed: boolean;
  /** "failed · 12 ms" */
  description: string;
  tooltip: string;
  /** Where the test is (a failing case: its failed assertion), 1-based line. */
  location?: { file: string; line: number };
}

export interface ExecutableNode {
  kind: "executable";
  label: string;
  /** "2 of 11 cases failed" */
  description: string;
  failed: boolean;
  children: TestNode[];
}

export type TestTreeNode = ExecutableNode | TestNode;

/** The separator between an executable's test and its case. */
const CASE_SEPARATOR = "::";

function testNode(t: RankingTest, label: string): TestNode {
  const failed = t.verdict === "fail";
  const outcome = t.outcome !== undefined ? t.outcome.replace(/_/g, " ") : failed ? "failed" : "passed";
  const time = t.duration_ms !== undefined ? ` · ${t.duration_ms} ms` : "";
  const at = t.location !== undefined ? `\n${t.location.file}:${t.location.line}` : "";
  return {
    kind: "test",
    name: t.name,
    label,
    failed,
    description: `${outcome}${time}`,
    tooltip: `${t.name}: ${outcome}${t.reason !== undefined ? `\n${t.reason}` : ""}${at}`,
    location: t.location,
  };
}

/** Top-level nodes in the run's order; an executable's cases under it, failing ones first. */
export function buildTestTree(tests: RankingTest[]): TestTreeNode[] {
  const roots: TestTreeNode[] = [];
  const groups = new Map<string, ExecutableNode>();
  for (const t of tests) {
    // The last separator: a CTest name may hold `::` itself (`ns::t::case`).
    const cut = t.name.lastIndexOf(CASE_SEPARATOR);
    if (cut < 0) {
      roots.push(testNode(t, t.name));
      continue;
    }
    const executable = t.name.slice(0, cut);
    let group = groups.get(executable);
    if (group === undefined) {
      group = { kind: "executable", label: executable, description: "", failed: false, children: [] };
      groups.set(executable, group);
      roots.push(group);
    }
    group.children.push(testNode(t, t.name.slice(cut + CASE_SEPARATOR.length)));
  }
  for (const group of groups.values()) {
    const failing = group.children.filter((c) => c.failed).length;
    const n = group.children.length;
    group.failed = failing > 0;
    group.description = failing > 0 ? `${failing} of ${n} cases failed` : `${n} case${n === 1 ? "" : "s"} passed`;
    // Stable: the run's order within failing and within passing cases.
    group.children.sort((a, b) => Number(b.failed) - Number(a.failed));
  }
  return roots;
}
