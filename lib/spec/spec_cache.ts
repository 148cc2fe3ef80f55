/**
 * A cache of loaded specs keyed by the file's identity (inode, size, modification time), so servers
 * can answer from a snapshot without parsing `harness.yaml` on every request. Every write of
 * `harness.yaml` is a rename, which changes the identity.
 *
 * @module
 */

import { specPath } from "../paths.ts";
import { type LoadedSpec, loadSpec } from "./load.ts";

const cache = new Map<string, { key: string; loaded: LoadedSpec }>();

/**
 * Loads a harness's spec, reusing the last load when the file has not changed. The returned snapshot
 * must be treated as read-only.
 *
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @returns The loaded spec.
 */
export async function loadSpecCached(harnessDir: string): Promise<LoadedSpec> {
  let key: string;
  try {
    const info = await Deno.stat(specPath(harnessDir));
    key = `${info.ino}:${info.size}:${info.mtime?.getTime()}`;
  } catch {
    return await loadSpec(harnessDir);
  }
  const hit = cache.get(harnessDir);
  if (hit && hit.key === key) return hit.loaded;
  const loaded = await loadSpec(harnessDir);
  cache.set(harnessDir, { key, loaded });
  return loaded;
}
