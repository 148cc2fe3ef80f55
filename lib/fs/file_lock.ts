/**
 * A lock that holds within one process (a promise chain per lock path) and across processes (an
 * advisory `flock` on a lock file), so two writers never interleave a read-modify-write.
 *
 * @module
 */

import { dirname } from "node:path";

const chains = new Map<string, Promise<unknown>>();

/**
 * Runs `fn` while holding the lock named by `lockPath`. The lock file is created if missing and is
 * never deleted (deleting it would let two processes lock two different files).
 *
 * @example
 * ```ts
 * await withFileLock("/h/.framework/harness.lock", async () => {
 *   // read, modify and write harness.yaml
 * });
 * ```
 * @param lockPath The lock file.
 * @param fn The critical section.
 * @returns What `fn` returns.
 */
export function withFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  const previous = chains.get(lockPath) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(() => holdFileLock(lockPath, fn));
  const tail = run.catch(() => {});
  chains.set(lockPath, tail);
  tail.then(() => {
    if (chains.get(lockPath) === tail) chains.delete(lockPath);
  });
  return run;
}

async function holdFileLock<T>(lockPath: string, fn: () => Promise<T>): Promise<T> {
  await Deno.mkdir(dirname(lockPath), { recursive: true });
  const file = await Deno.open(lockPath, { create: true, write: true });
  try {
    await file.lock(true);
    try {
      return await fn();
    } finally {
      await file.unlock();
    }
  } finally {
    file.close();
  }
}
