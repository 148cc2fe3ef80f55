/**
 * Faces of one control plane measured side by side: each variant is a request (a function that
 * sends it and checks its answer); they take turns request by request, and batch by batch or loop by
 * loop for the concurrent figures, their order alternating, so the drift of a shared machine falls
 * on all alike.
 *
 * @module
 */

import { fmt, fmtRatio, measure, report } from "./measure.ts";

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
 * Measures the variants taking turns and prints each one's p50 at one client and two figures at
 * `clients`, with its ratios to the first variant: runs per second of `clients` clients that each
 * send their next request as soon as their answer is in (a closed loop, as `wrk` keeps its
 * connections busy), and of batches of `clients` requests sent together and awaited together (each
 * batch lasts as long as its slowest request).
 *
 * @param variants Name → one request, given the client sending it (0 to `clients` − 1: a variant
 *   that needs a resource of its own per client, a thread, picks it by this).
 * @param options Clients, rounds, requests per round.
 */
export async function takeTurns(
  variants: Record<string, (client: number) => Promise<void>>,
  { clients, rounds, perRound }: TurnsOptions,
): Promise<void> {
  const names = Object.keys(variants);
  const everyClient = (fn: (client: number) => Promise<void>) => (_: unknown, c: number) => fn(c);
  const batch = (fn: (client: number) => Promise<void>) => async () => {
    await Promise.all(Array.from({ length: clients }, everyClient(fn)));
  };
  // Each client sends its requests one after another, the clients side by side.
  const loops = (fn: (client: number) => Promise<void>, each: number) => async () => {
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; i < each; i++) await fn(c);
    }));
  };
  const timed = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  const LOOP_REQUESTS = 10;
  // A loop sample of each variant every fourth request (ten in a round of 40).
  const LOOP_EVERY = 4;
  const one: Record<string, number[]> = {};
  const batches: Record<string, number[]> = {};
  const looped: Record<string, number[]> = {};
  for (const name of names) await measure(10, () => variants[name]!(0), 5); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < perRound; i++) {
      const order = (round + i) % 2 ? [...names].reverse() : names;
      for (const name of order) (one[name] ??= []).push(await timed(() => variants[name]!(0)));
      if (i % 2) continue;
      for (const name of order) {
        (batches[name] ??= []).push(await timed(batch(variants[name]!)));
      }
      if (i % LOOP_EVERY) continue;
      // Every loop sample of one variant beside one of each other, the order alternating sample by
      // sample: each variant goes first in half of them.
      const k = round * Math.ceil(perRound / LOOP_EVERY) + i / LOOP_EVERY;
      for (const name of k % 2 ? [...names].reverse() : names) {
        (looped[name] ??= []).push(await timed(loops(variants[name]!, LOOP_REQUESTS)));
      }
    }
  }
  const rate = (times: number[], requests: number) => (requests * 1000) / median(times);
  const figures = (name: string) => ({
    ms: median(one[name]!),
    looped: rate(looped[name]!, clients * LOOP_REQUESTS),
    batched: rate(batches[name]!, clients),
  });
  const first = figures(names[0]!);
  for (const [k, name] of names.entries()) {
    const f = figures(name);
    report(name, {
      "p50, 1 client": fmt(f.ms, " ms"),
      [`runs/s, ${clients} clients`]: fmt(f.looped),
      [`in batches of ${clients}`]: fmt(f.batched),
      ...(k === 0 ? {} : {
        [`vs ${names[0]}`]: `${fmtRatio(f.ms / first.ms)} latency, ${
          fmtRatio(f.looped / first.looped)
        } throughput (${fmtRatio(f.batched / first.batched)} in batches)`,
      }),
    });
  }
}
