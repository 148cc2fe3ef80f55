/**
 * Writes that wait for the hive's database to come back: a run that ended while the database was out
 * of reach is recorded (and its journal copied) once it answers again, by the process that ran it.
 *
 * @module
 */

import { isHiveUnavailable } from "../errors.ts";

const RETRY_MS = 1000;

let pending = 0;

/**
 * Runs `task` again every second until it no longer fails for want of the database (another error
 * ends the retries, reported on stderr). The timer never keeps the process alive.
 *
 * @param what What the task records (for the message).
 * @param task The write.
 */
export function retryWhenHiveBack(what: string, task: () => void | Promise<void>): void {
  pending += 1;
  const attempt = async () => {
    try {
      await task();
      pending -= 1;
    } catch (err) {
      if (isHiveUnavailable(err)) {
        Deno.unrefTimer(setTimeout(attempt, RETRY_MS));
        return;
      }
      pending -= 1;
      console.error(`warning: could not record ${what} in the hive: ${(err as Error).message}`);
    }
  };
  Deno.unrefTimer(setTimeout(attempt, RETRY_MS));
}

/**
 * How many writes wait for the database.
 *
 * @returns The count.
 */
export function hiveWritesPending(): number {
  return pending;
}
