/**
 * Keeping the catalog current while the workbench runs: a rescan of the harness trees that runs at
 * most once per interval when the catalog is read, at once when a person asks, and never twice at the
 * same time.
 *
 * @module
 */

/** A rescan of the harness trees. */
export interface Rescan {
  /** Rescans when the last scan is older than the interval (waits for one under way). */
  ifStale(): Promise<void>;
  /** Rescans now (or waits for the scan under way). */
  now(): Promise<void>;
}

/**
 * Creates a rescan.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { discoverHarnesses } from "./catalog.ts";
 *
 * const rescan = createRescan(() => discoverHarnesses(openHive(), [], ["./harnesses"]), 3000);
 * await rescan.ifStale();
 * ```
 * @param scan The scan; its failures are reported on stderr, never thrown.
 * @param intervalMs The oldest a scan may be before `ifStale` scans again.
 * @returns The rescan.
 */
export function createRescan(scan: () => Promise<unknown>, intervalMs: number): Rescan {
  let last = performance.now();
  let running: Promise<void> | undefined;
  const now = () => {
    running ??= scan().then(
      () => {},
      (err) => console.error(`workbench: scanning for harnesses failed: ${(err as Error).message}`),
    ).finally(() => {
      last = performance.now();
      running = undefined;
    });
    return running;
  };
  return {
    ifStale:
      () => (running ?? (performance.now() - last >= intervalMs ? now() : Promise.resolve())),
    now,
  };
}
