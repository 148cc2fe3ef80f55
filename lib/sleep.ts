/**
 * Waiting that a run's abort signal can cut short.
 *
 * @module
 */

/**
 * Waits `ms` milliseconds, or rejects with the signal's reason as soon as it aborts.
 *
 * @example
 * ```ts
 * await sleep(250, AbortSignal.timeout(1000));
 * ```
 * @param ms How long.
 * @param signal Stops the wait.
 * @returns When the time is up.
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
