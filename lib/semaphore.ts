/**
 * A counting semaphore: at most `n` holders at once, the rest wait in arrival order. Used where work
 * that any request can start must stay bounded (sandbox processes for validation).
 *
 * @module
 */

/** A semaphore. */
export interface Semaphore {
  /** Waits for a permit; resolves with the function that gives it back (idempotent). */
  acquire(): Promise<() => void>;
  /** Runs `fn` holding a permit. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Holders and waiters now. */
  counts(): { held: number; waiting: number };
}

/**
 * Creates a semaphore with `n` permits.
 *
 * @example
 * ```ts
 * // At most two pages fetched at once, however many are asked for.
 * const bound = createSemaphore(2);
 * const urls = ["https://example.com/a", "https://example.com/b", "https://example.com/c"];
 * await Promise.all(urls.map((url) => bound.run(() => fetch(url).then((r) => r.text()))));
 * ```
 * @param n How many may hold it at once (at least 1).
 * @returns The semaphore.
 */
export function createSemaphore(n: number): Semaphore {
  const permits = Math.max(1, Math.floor(n));
  let held = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = waiting.shift();
      if (next) next();
      else held -= 1;
    };
  };
  const acquire = (): Promise<() => void> => {
    if (held < permits) {
      held += 1;
      return Promise.resolve(release());
    }
    return new Promise((resolve) => waiting.push(() => resolve(release())));
  };
  return {
    acquire,
    async run(fn) {
      const give = await acquire();
      try {
        return await fn();
      } finally {
        give();
      }
    },
    counts: () => ({ held, waiting: waiting.length }),
  };
}
