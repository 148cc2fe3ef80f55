/**
 * Background work that must not delay a result but must finish before the process exits (an
 * automatic proposal after a failed run). Short-lived commands wait for it before exiting.
 *
 * @module
 */

const pending = new Set<Promise<unknown>>();

/**
 * Tracks a background task until it settles. Failures are the task's own business (log them there).
 *
 * @param task The task.
 */
export function trackBackground(task: Promise<unknown>): void {
  const tracked = task.catch(() => {}).finally(() => pending.delete(tracked));
  pending.add(tracked);
}

/**
 * Waits for every tracked task (and those they start) to settle.
 *
 * @returns When nothing is left.
 */
export async function settleBackground(): Promise<void> {
  while (pending.size) await Promise.allSettled([...pending]);
}
