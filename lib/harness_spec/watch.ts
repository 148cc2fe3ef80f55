/**
 * Tells a long-lived server when a harness's `harness.yaml` may have changed, without a `stat` per
 * request: a file-system watch on the harness folder marks the spec as changed on any event that
 * names the file (every write of it is a rename into the folder). When the platform cannot watch,
 * the spec is always reported as possibly changed, so callers fall back to checking the file.
 *
 * @module
 */

import { specPath } from "../paths.ts";

let writtenInProcess = 0;

/**
 * Records that this process has just written a `harness.yaml`, so every watch reports a change at
 * once, without waiting for the file-system event (a server's own edit is seen by its next request).
 */
export function noteSpecWritten(): void {
  writtenInProcess++;
}

/** A watch on one harness's spec file. */
export interface SpecWatch {
  /**
   * A number that changes whenever `harness.yaml` may have changed since it was last read; compare it
   * to decide whether a snapshot built from the spec is still current. Always a new value when the
   * folder cannot be watched.
   */
  generation(): number;
  /** Stops watching. */
  close(): void;
}

/**
 * Watches a harness folder for changes to its spec.
 *
 * @example
 * ```ts
 * const watch = watchSpec("/work/harnesses/hello");
 * const seen = watch.generation();
 * // … later: if (watch.generation() !== seen) rebuild the snapshot
 * watch.close();
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @returns The watch.
 */
export function watchSpec(harnessDir: string): SpecWatch {
  const file = specPath(harnessDir);
  let generation = 0;
  let live = true;
  let watcher: Deno.FsWatcher | undefined;
  try {
    watcher = Deno.watchFs(harnessDir, { recursive: false });
  } catch {
    live = false;
  }
  if (watcher) {
    const w = watcher;
    (async () => {
      try {
        for await (const event of w) {
          if (event.kind === "access") continue;
          if (event.paths.length === 0 || event.paths.some((p) => p === file)) generation++;
          // The folder itself moved or went away: nothing reliable is reported any more.
          if (event.paths.some((p) => p === harnessDir) && event.kind === "remove") live = false;
        }
      } catch {
        // The watch failed: fall back to "always possibly changed".
      }
      live = false;
    })();
  }
  return {
    generation: () => live ? generation + writtenInProcess : ++generation + writtenInProcess,
    close() {
      live = false;
      try {
        watcher?.close();
      } catch {
        // already closed
      }
    },
  };
}
