import assert from "node:assert/strict";
import { test } from "node:test";
import { backgroundAlpha, heatColor, heatShade, hex, relativeLuminance, shadeStyle, type Rgb } from "../src/colorScale";

const samples = (n: number) => Array.from({ length: n + 1 }, (_, i) => i / n);

test("ends of the scale are viridis' ends", () => {
  assert.equal(hex(heatColor(0)), "#440154");
  assert.equal(hex(heatColor(1)), "#fde725");
  assert.equal(hex(heatColor(0.5)), "#21908d");
});

test("out-of-range and NaN heat are clamped", () => {
  assert.deepEqual(heatColor(-3), heatColor(0));
  assert.deepEqual(heatColor(7), heatColor(1));
  assert.deepEqual(heatColor(Number.NaN), heatColor(0));
});

test("the scale is perceptually ordered: luminance rises strictly with heat", () => {
  const lum = samples(200).map((h) => relativeLuminance(heatColor(h)));
  for (let i = 1; i < lum.length; i++) assert.ok(lum[i] > lum[i - 1], `luminance not increasing at heat ${i / 200}`);
});

// Machado, Oliveira & Fernandes (2009) simulation matrices at full severity, in linear RGB.
const CVD: Record<string, number[][]> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
  tritanopia: [
    [1.255528, -0.076749, -0.178779],
    [-0.078411, 0.930809, 0.147602],
    [0.004733, 0.691367, 0.3039],
  ],
};

function simulatedLuminance(c: Rgb, m: number[][]): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
  };
  const v = [lin(c.r), lin(c.g), lin(c.b)];
  const out = m.map((row) => Math.min(1, Math.max(0, row[0] * v[0] + row[1] * v[1] + row[2] * v[2])));
  return 0.2126 * out[0] + 0.7152 * out[1] + 0.0722 * out[2];
}

for (const [name, m] of Object.entries(CVD)) {
  test(`the scale stays ordered for ${name}`, () => {
    const lum = samples(100).map((h) => simulatedLuminance(heatColor(h), m));
    for (let i = 1; i < lum.length; i++) assert.ok(lum[i] > lum[i - 1], `${name}: not increasing at heat ${i / 100}`);
  });
}

test("the scale is continuous, not a few buckets", () => {
  const shades = new Set(samples(100).map((h) => hex(heatColor(h))));
  assert.ok(shades.size >= 95, `only ${shades.size} distinct colours over 101 samples`);
  // Neighbouring samples differ by little: no jumps between bands.
  const cs = samples(100).map(heatColor);
  for (let i = 1; i < cs.length; i++) {
    const d = Math.max(Math.abs(cs[i].r - cs[i - 1].r), Math.abs(cs[i].g - cs[i - 1].g), Math.abs(cs[i].b - cs[i - 1].b));
    assert.ok(d <= 8, `jump of ${d} at heat ${i / 100}`);
  }
});

test("shades quantize heat to 101 levels and map back to the scale", () => {
  assert.equal(heatShade(0), 0);
  assert.equal(heatShade(1), 100);
  assert.equal(heatShade(0.944), 94);
  assert.equal(heatShade(2), 100);
  const s = shadeStyle(100);
  assert.equal(s.overviewRuler, "#fde725");
  assert.equal(s.background, "rgba(253, 231, 37, 0.42)");
});

test("background opacity grows with heat but keeps text readable", () => {
  assert.ok(backgroundAlpha(0) < backgroundAlpha(0.5));
  assert.ok(backgroundAlpha(0.5) < backgroundAlpha(1));
  assert.ok(backgroundAlpha(1) <= 0.5);
  assert.ok(backgroundAlpha(0) > 0);
});
