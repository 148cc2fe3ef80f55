/**
 * Faces of one control plane measured side by side: each variant is a request (a function that
 * sends it and checks its answer); they take turns request by request, and batch by batch for the
 * concurrent figure, their order alternating, so the drift of a shared machine falls on all alike.
 *
 * @module
 */

import { fmt, measure, report } from "./measure.ts";

/** How the variants are taken in turn. */
export interface TurnsOptions {
  /** Clients at once for the throughput figure. */
  clients: number;
  rounds: number;
  /** Requests of each variant per round (one client); a batch of each every second request. */
  perRound: number;
}

/** The median of a list. */
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Measures the variants taking turns and prints each one's p50 at one client and runs per second at
 * `clients`, and its ratios to the first variant.
 *
 * @param variants Name → one request.
 * @param options Clients, rounds, requests per round.
 */
export async function takeTurns(
  variants: Record<string, () => Promise<void>>,
  { clients, rounds, perRound }: TurnsOptions,
): Promise<void> {
  const names = Object.keys(variants);
  const concurrently = (fn: () => Promise<void>) => async () => {
    await Promise.all(Array.from({ length: clients }, fn));
  };
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const one: Record<string, number[]> = {};
  const many: Record<string, number[]> = {};
  for (const name of names) await measure(10, variants[name]!, 5); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) {
      const order = (round + i) % 2 ? [...names].reverse() : names;
      for (const name of order) (one[name] ??= []).push(await timed(variants[name]!));
      if (i % 2) continue;
      for (const name of order) {
        (many[name] ??= []).push(await timed(concurrently(variants[name]!)));
      }
    }
  }
  const firstMs = median(one[names[0]!]!);
  const firstRps = (clients * 1000) / median(many[names[0]!]!);
  for (const [k, name] of names.entries()) {
    const ms = median(one[name]!);
    const rps = (clients * 1000) / median(many[name]!);
    report(name, {
      "p50, 1 client": fmt(ms, " ms"),
      [`runs/s, ${clients} clients`]: fmt(rps),
      ...(k === 0 ? {} : {
        [`vs ${names[0]}`]: `${fmt(ms / firstMs)}x latency, ${fmt(rps / firstRps)}x throughput`,
      }),
    });
  }
}
