// How ranks and scores read in labels. No `vscode` import: unit-tested.
import type { RankRange } from "./protocol";

/** "#1" for a unique rank, "#2–4" when lines tie for ranks 2 to 4. */
export function rankLabel(rank: RankRange): string {
  if (!Number.isFinite(rank.best)) return "#?";
  if (rank.worst > rank.best) return `#${rank.best}–${rank.worst}`;
  return `#${rank.best}`;
}

/** JSON has no infinity: the server sends ±f64::MAX for an infinite score (DStar with ep = 0). */
const INFINITE = 1e300;

/** Scores of bounded measures are in 0..1; DStar and friends are unbounded. */
export function formatScore(score: number): string {
  if (Number.isNaN(score)) return "?";
  if (Math.abs(score) >= INFINITE) return score > 0 ? "∞" : "-∞";
  if (Math.abs(score) >= 1000) return score.toExponential(2);
  if (Math.abs(score) >= 100) return score.toFixed(0);
  return score.toFixed(2);
}

/** Shortens a source line for a one-line label. */
export function shortText(text: string, max = 80): string {
  const t = text.trim().replace(/\s+/g, " ");
  return t.length <= max ? t : t.slice(0, max - 1) + "…";
}
