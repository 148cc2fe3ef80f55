/**
 * A cache of loaded specs keyed by the file's identity (inode, size, modification time), so servers
 * can answer from a snapshot without parsing `harness.yaml` on every request. Every write of
 * `harness.yaml` is a rename, which changes the identity.
 *
 * @module
 */

import { specPath } from "../paths.ts";
import {
  type LoadedSpec,
  loadSpec,
  type ParsedSpecText,
  parseSpecText,
  readSpecText,
  resolveHarnessDir,
} from "./load.ts";
import { specVersion } from "./version.ts";

const cache = new Map<string, { key: string; loaded: LoadedSpec }>();

/**
 * Loads a harness's spec, reusing the last load when the file has not changed. The returned snapshot
 * must be treated as read-only.
 *
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @returns The loaded spec.
 */
export async function loadSpecCached(harnessDir: string): Promise<LoadedSpec> {
  const key = fileKey(specPath(harnessDir));
  if (!key) return await loadSpec(harnessDir);
  const hit = cache.get(harnessDir);
  if (hit && hit.key === key) return hit.loaded;
  const loaded = await loadSpec(harnessDir);
  cache.set(harnessDir, { key, loaded });
  return loaded;
}

const checked = new Map<string, { key: string; parsed: ParsedSpecText }>();

/**
 * Checks a harness's spec like {@link checkHarness} (never throws for an invalid spec), reusing the
 * last parse while the file is unchanged. The returned snapshot must be treated as read-only.
 *
 * @param dir The harness folder.
 * @returns The folder (realpath), the parsed text and its issues.
 */
export async function checkHarnessCached(
  dir: string,
): Promise<{ dir: string; parsed: ParsedSpecText }> {
  const real = await resolveHarnessDir(dir);
  const key = fileKey(specPath(real));
  const hit = checked.get(real);
  if (key && hit && hit.key === key) return { dir: real, parsed: hit.parsed };
  const parsed = parseSpecText(await readSpecText(real));
  if (key) checked.set(real, { key, parsed });
  return { dir: real, parsed };
}

const versions = new WeakMap<ParsedSpecText, string | null>();

/**
 * The version of a snapshot that {@link checkHarnessCached} returned, hashed once per snapshot: a
 * large spec's canonical JSON and hash cost milliseconds, and a page asks for it on every request.
 *
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * const yaml = "id: hi\nmodel: { provider: scripted, replies: [{ text: hi }] }\n";
 * await Deno.writeTextFile(`${dir}/harness.yaml`, yaml);
 * const { parsed } = await checkHarnessCached(dir);
 * cachedSpecVersion(parsed)?.length; // 64
 * ```
 * @param parsed A snapshot from {@link checkHarnessCached} (read-only, so its version holds).
 * @returns The spec's version, or null when it does not parse as a spec.
 */
export function cachedSpecVersion(parsed: ParsedSpecText): string | null {
  let version = versions.get(parsed);
  if (version === undefined) {
    version = parsed.spec ? specVersion(parsed.spec) : null;
    versions.set(parsed, version);
  }
  return version;
}

/** The file's identity, by a synchronous stat (microseconds; no thread-pool round trip per run). */
function fileKey(path: string): string | null {
  try {
    const info = Deno.statSync(path);
    return `${info.ino}:${info.size}:${info.mtime?.getTime()}`;
  } catch {
    return null;
  }
}
