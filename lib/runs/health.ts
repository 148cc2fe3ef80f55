/**
 * The control plane's `/health` answer as a snapshot: built from the spec and the evolved counter,
 * serialized once, and answered as is until something it shows may have changed. A change to
 * `harness.yaml` (watched, see `harness_spec/watch.ts`) or a proposal applied in this process rebuilds it
 * on the next request, and so does a trace this process could not export (`otel_dropped`); anything
 * else another process wrote is picked up within {@link MAX_AGE_MS}.
 * So a request does no file or SQL work in the common case, and `/health` stays cheap under load.
 *
 * @module
 */

import { okEnvelope } from "../envelope.ts";
import { openHive } from "../hive/open.ts";
import { evolvedCount, proposalsAppliedInProcess } from "../hive/proposals.ts";
import { folderSpecDrift } from "../harness_spec/drift.ts";
import { harnessRef } from "../harness_spec/load.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";
import { watchSpec } from "../harness_spec/watch.ts";
import { otelDropped } from "../otel/export_queue.ts";

/** The longest a snapshot is answered without looking at the spec file and the hive again. */
export const MAX_AGE_MS = 1000;

/** A harness's health snapshot. */
export interface HealthSnapshot {
  /**
   * The `/health` body in the ok wrapper, as JSON text: the text itself while the snapshot stands
   * (the probe's path takes no promise), a promise while it is rebuilt.
   */
  json(): string | Promise<string>;
  /** Stops watching the harness folder. */
  close(): void;
}

/**
 * Serves the health of one harness from a snapshot.
 *
 * @example
 * ```ts
 * const health = healthSnapshot("/work/harnesses/hello");
 * new Response(await health.json());
 * health.close();
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @returns The snapshot.
 */
export function healthSnapshot(harnessDir: string): HealthSnapshot {
  const watch = watchSpec(harnessDir);
  let current:
    | { json: string; specGeneration: number; applied: number; dropped: number; builtAt: number }
    | undefined;
  let building: { promise: Promise<string>; specGeneration: number; applied: number } | undefined;
  const build = async () => {
    const specGeneration = watch.generation();
    const applied = proposalsAppliedInProcess();
    const dropped = otelDropped();
    const builtAt = performance.now();
    const loaded = await loadSpecCached(harnessDir);
    const db = openHive();
    const drift = await folderSpecDrift(db, loaded.dir, loaded.spec.id, loaded.version);
    const json = JSON.stringify(okEnvelope({
      id: loaded.spec.id,
      name: loaded.spec.name ?? loaded.spec.id,
      spec_version: loaded.version,
      evolved: evolvedCount(db, harnessRef(loaded)),
      otel_dropped: dropped,
      ...drift,
    }));
    current = { json, specGeneration, applied, dropped, builtAt };
    return json;
  };
  return {
    json() {
      const c = current;
      if (
        c && c.specGeneration === watch.generation() && c.applied === proposalsAppliedInProcess() &&
        c.dropped === otelDropped() && performance.now() - c.builtAt < MAX_AGE_MS
      ) {
        return c.json;
      }
      // Requests that arrive while the snapshot is rebuilt share the rebuild, unless something changed
      // after it began.
      const specGeneration = watch.generation();
      const applied = proposalsAppliedInProcess();
      if (
        !building || building.specGeneration !== specGeneration || building.applied !== applied
      ) {
        const promise: Promise<string> = build().finally(() => {
          if (building?.promise === promise) building = undefined;
        });
        building = { promise, specGeneration, applied };
      }
      return building.promise;
    },
    close: () => watch.close(),
  };
}
