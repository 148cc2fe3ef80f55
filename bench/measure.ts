/**
 * Tiny measuring helpers for the benchmarks: they print figures and ratios, never assert.
 *
 * @module
 */

/** Timing summary in milliseconds. */
export interface Timing {
  n: number;
  total_ms: number;
  mean_ms: number;
  p50_ms: number;
  p99_ms: number;
  per_second: number;
}

/**
 * Summarises a list of durations.
 *
 * @param durations Milliseconds per operation.
 * @returns The summary.
 */
export function summarize(durations: number[]): Timing {
  const sorted = [...durations].sort((a, b) => a - b);
  const total = durations.reduce((a, b) => a + b, 0);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    n: durations.length,
    total_ms: total,
    mean_ms: total / Math.max(1, durations.length),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
    per_second: durations.length / (total / 1000),
  };
}

/**
 * Runs `fn` `n` times (after `warmup` unmeasured runs) and summarises.
 *
 * @param n Measured iterations.
 * @param fn The operation.
 * @param warmup Unmeasured iterations first.
 * @returns The summary.
 */
export async function measure(
  n: number,
  fn: () => unknown | Promise<unknown>,
  warmup = Math.min(20, n),
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return summarize(out);
}

/** Formats a number with a unit, 3 significant digits. */
export function fmt(n: number, unit = ""): string {
  const s = n >= 100
    ? n.toFixed(0)
    : n >= 10
    ? n.toFixed(1)
    : n >= 1
    ? n.toFixed(2)
    : n.toPrecision(3);
  return `${Number(s).toLocaleString("en-US", { maximumFractionDigits: 3 })}${unit}`;
}

/** Formats a ratio to a thousandth (1.104x, not 1.1x: a target of "within 10 %" is read from it). */
export function fmtRatio(n: number): string {
  return `${n.toFixed(3)}x`;
}

/** Prints one result line. */
export function report(name: string, figures: Record<string, string>): void {
  console.log(
    `${name.padEnd(48)} ${Object.entries(figures).map(([k, v]) => `${k} ${v}`).join("  ")}`,
  );
}
