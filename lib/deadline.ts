/**
 * A time limit as an abort signal that lets go when the work ends. `AbortSignal.timeout()` keeps its
 * timer (and everything listening to the signal) alive until it fires, so a run with a ten-minute limit
 * that finished in a second would stay in memory for ten minutes; a deadline is cleared instead.
 *
 * @module
 */

/** A time limit: its signal aborts when the time is up, unless cleared first. */
export interface Deadline extends Disposable {
  /** Aborts with a `TimeoutError` DOMException when the time is up. */
  signal: AbortSignal;
  /** Cancels the timer (call when the work ends; disposing does the same). */
  clear(): void;
}

/**
 * Starts a time limit.
 *
 * @example
 * ```ts
 * using limit = deadline(600_000);
 * await fetch("https://example.com/", { signal: limit.signal });
 * ```
 * @param ms Milliseconds until the signal aborts.
 * @returns The deadline.
 */
export function deadline(ms: number): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException("The time limit was reached", "TimeoutError")),
    ms,
  );
  const clear = () => clearTimeout(timer);
  return { signal: controller.signal, clear, [Symbol.dispose]: clear };
}
