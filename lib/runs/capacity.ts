/**
 * Run capacity: at most `maxConcurrent` runs at once and `maxQueued` waiting in FIFO order; beyond
 * that a run is refused (503) with a `Retry-After` estimated from recent run durations. Only runs pass
 * this gate: nothing else ever waits for run capacity. A delegated child does not pass it either: it
 * works in its parent's slot while the parent waits on it (the run service decides,
 * `lib/runs/service.ts`), since a child queued behind its own parent would wait for a slot that is
 * freed only when it has finished.
 *
 * @module
 */

import { overCapacity } from "../errors.ts";

/** Capacity settings. */
export interface GateLimits {
  maxConcurrent: number;
  maxQueued: number;
}

/** An admitted run: a slot now, or a place in the queue. */
export interface Admission {
  /** Whether it waits in the queue. */
  queued: boolean;
  /** Resolves when the run may start, with the function that frees its slot. */
  ready: Promise<() => void>;
}

/** The gate. */
export interface RunGate {
  /** Admits a run or throws `over_capacity` (503) with a Retry-After estimate. Decided at once. */
  admit(): Admission;
  /**
   * A slot again for a run already admitted that let its slot go (it waited for a person): ahead of
   * runs not yet started, and never refused.
   */
  resume(): Promise<() => void>;
  /** Current counts. */
  counts(): { running: number; queued: number };
  /** Whether a run admitted now would start at once (a slot is free), not wait in the queue. */
  hasFreeSlot(): boolean;
}

/**
 * Creates a gate.
 *
 * @example
 * ```ts
 * import { startRun } from "./service.ts";
 *
 * const gate = createRunGate({ maxConcurrent: 1, maxQueued: 4 });
 * const release = await gate.admit().ready; // throws over_capacity (503) when 4 already wait
 * try {
 *   await (await startRun("./harnesses/hello", { input: "Hi" })).result;
 * } finally {
 *   release();
 * }
 * ```
 * @param limits The limits.
 * @returns The gate.
 */
export function createRunGate(limits: GateLimits): RunGate {
  let running = 0;
  const queue: ((release: () => void) => void)[] = [];
  const recent: number[] = [];

  const makeRelease = () => {
    const started = performance.now();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      recent.push(performance.now() - started);
      if (recent.length > 20) recent.shift();
      const next = queue.shift();
      if (next) next(makeRelease());
      else running -= 1;
    };
  };

  const estimateSeconds = () => {
    const avgMs = recent.length ? recent.reduce((a, b) => a + b, 0) / recent.length : 5000;
    const waves = Math.ceil((queue.length + 1) / Math.max(1, limits.maxConcurrent));
    return Math.min(600, Math.max(1, Math.ceil((avgMs * waves) / 1000)));
  };

  return {
    admit() {
      if (running < limits.maxConcurrent) {
        running += 1;
        return { queued: false, ready: Promise.resolve(makeRelease()) };
      }
      if (queue.length < limits.maxQueued) {
        return { queued: true, ready: new Promise((resolve) => queue.push(resolve)) };
      }
      throw overCapacity(
        estimateSeconds(),
        `All ${limits.maxConcurrent} run slots are busy and ${limits.maxQueued} runs are already waiting`,
      );
    },
    resume() {
      if (running < limits.maxConcurrent) {
        running += 1;
        return Promise.resolve(makeRelease());
      }
      return new Promise((resolve) => queue.unshift(resolve));
    },
    counts: () => ({ running, queued: queue.length }),
    hasFreeSlot: () => running < limits.maxConcurrent,
  };
}
