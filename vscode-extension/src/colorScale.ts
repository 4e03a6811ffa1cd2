// The heatmap's colour scale: viridis, interpolated continuously from the
// `heat` value (0..1). Viridis is perceptually uniform, its lightness rises
// monotonically (so it still orders correctly in greyscale), and it stays
// distinguishable under the common colour-vision deficiencies. No `vscode`
// import: unit-tested.

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Viridis sampled at 9 evenly spaced points (matplotlib's definition). */
const VIRIDIS_STOPS: readonly string[] = [
  "#440154",
  "#472c7a",
  "#3b518b",
  "#2c718e",
  "#21908d",
  "#27ad81",
  "#5cc863",
  "#aadc32",
  "#fde725",
];

function hexToRgb(hex: string): Rgb {
  const n = parseInt(hex.slice(1), 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

const STOPS: readonly Rgb[] = VIRIDIS_STOPS.map(hexToRgb);

export function clampHeat(heat: number): number {
  if (Number.isNaN(heat)) return 0;
  return Math.min(1, Math.max(0, heat));
}

/** The scale's colour for `heat`, linearly interpolated between stops. */
export function heatColor(heat: number): Rgb {
  const h = clampHeat(heat) * (STOPS.length - 1);
  const i = Math.min(Math.floor(h), STOPS.length - 2);
  const t = h - i;
  const a = STOPS[i];
  const b = STOPS[i + 1];
  const mix = (x: number, y: number) => Math.round(x + (y - x) * t);
  return { r: mix(a.r, b.r), g: mix(a.g, b.g), b: mix(a.b, b.b) };
}

/**
 * Line backgrounds are translucent so the code stays readable; opacity grows
 * with heat so the most suspicious lines stand out on light and dark themes alike.
 */
export function backgroundAlpha(heat: number): number {
  return Math.round((0.12 + 0.3 * clampHeat(heat)) * 100) / 100;
}

export function rgba(c: Rgb, alpha: number): string {
  return `rgba(${c.r}, ${c.g}, ${c.b}, ${alpha})`;
}

export function hex(c: Rgb): string {
  return "#" + [c.r, c.g, c.b].map((v) => v.toString(16).padStart(2, "0")).join("");
}

/**
 * Heat rounded to one of `steps + 1` shades. Each shade is one editor
 * decoration type; 101 shades are indistinguishable from a continuous ramp.
 */
export function heatShade(heat: number, steps = 100): number {
  return Math.round(clampHeat(heat) * steps);
}

/** WCAG relative luminance, used by the tests to check the ramp is ordered. */
export function relativeLuminance(c: Rgb): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

export interface LineStyle {
  background: string;
  overviewRuler: string;
}

/** Stale lines (file edited since the run) get a neutral grey: their score may no longer apply. */
export const STALE_STYLE: LineStyle = { background: "rgba(128, 128, 128, 0.18)", overviewRuler: "#808080" };

/** The style of a heat shade from `heatShade`. */
export function shadeStyle(shade: number, steps = 100): LineStyle {
  const heat = shade / steps;
  const c = heatColor(heat);
  return { background: rgba(c, backgroundAlpha(heat)), overviewRuler: hex(c) };
}
