/**
 * Waiting that a run's abort signal can cut short: a pause, or any work the run waits on.
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

/**
 * Waits for a promise, or rejects with the signal's reason as soon as it aborts (the work itself goes
 * on unless it listens to the signal too: a call in the sandbox is stopped with its sandbox).
 *
 * @example
 * ```ts
 * import { createSandbox } from "./tools/sandbox.ts";
 *
 * const sandbox = createSandbox(await Deno.realPath("./harnesses/hello"));
 * const run = new AbortController(); // stopping the run aborts the wait
 * const call = sandbox.call("checks/tone.ts#polite", { output: "Hello" }, {}, 60_000);
 * const { value } = await abortable(call, run.signal);
 * ```
 * @param promise The work.
 * @param signal Stops the wait.
 * @returns What the work answered.
 */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {}); // nobody waits for it any more
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
