// What the heatmap paints on one document: per scored line, its shade (one
// decoration type each), its colours and its rank label. No `vscode` import:
// unit-tested; heatmap.ts only hands the plan to the editor.
import { heatShade, shadeStyle, STALE_STYLE, type LineStyle } from "./colorScale";
import { rankLabel } from "./format";
import type { ScoredLine } from "./protocol";

/** Decoration key of stale lines; heat shades are 0..100. */
export const STALE_KEY = -1;

export interface PlannedLine {
  line: number;
  /** Which decoration type paints it: a heat shade, or STALE_KEY. */
  key: number;
  style: LineStyle;
  /** Text after the line: " #1", " #2–4", " #3 stale". */
  after: string;
  heat: number;
  stale: boolean;
}

export function styleOfKey(key: number): LineStyle {
  return key === STALE_KEY ? STALE_STYLE : shadeStyle(key);
}

/** The plan for a document of `lineCount` lines; lines past its end (a shorter, edited file) are skipped. */
export function planHeatmap(lines: readonly ScoredLine[], lineCount: number): PlannedLine[] {
  return lines
    .filter((l) => l.line < lineCount)
    .map((l) => {
      const key = l.stale ? STALE_KEY : heatShade(l.heat);
      return {
        line: l.line,
        key,
        style: styleOfKey(key),
        after: ` ${rankLabel(l.rank)}${l.stale ? " stale" : ""}`,
        heat: l.heat,
        stale: l.stale,
      };
    });
}
