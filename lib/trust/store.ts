/**
 * The trust store: `<home>/trust.json`, the real paths of harness folders whose code may run on this
 * machine. A folder is trusted when it or one of its ancestors is listed.
 *
 * @module
 */

import { dirname, join, sep } from "node:path";
import { badInput, notFound } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { withFileLock } from "../fs/file_lock.ts";
import { frameworkHome, trustStorePath } from "../paths.ts";

/** One trusted folder. */
export interface TrustEntry {
  path: string;
  trusted_at: string;
}

interface TrustFile {
  version: 1;
  trusted: TrustEntry[];
}

/**
 * Reads the trust store. A missing file is an empty store; a corrupt one is an error (it is never
 * silently replaced).
 *
 * @returns The trusted folders.
 */
export function listTrusted(): Promise<TrustEntry[]> {
  return Promise.resolve().then(readTrustStore);
}

function readTrustStore(): TrustEntry[] {
  const path = trustStorePath();
  let text: string;
  try {
    // Small local files read on every in-process run: sync reads skip the thread-pool round trip.
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as TrustFile;
    if (!Array.isArray(parsed.trusted)) throw new Error("no `trusted` list");
    return parsed.trusted.filter((e) => typeof e?.path === "string");
  } catch (err) {
    throw badInput(
      `The trust store ${path} is corrupt (${(err as Error).message}); fix it or move it away`,
      {
        path,
      },
    );
  }
}

function realDir(dir: string): string {
  try {
    const real = Deno.realPathSync(dir);
    if (!Deno.statSync(real).isDirectory) throw new Error("not a folder");
    return real;
  } catch {
    throw badInput(`Not a folder: ${JSON.stringify(dir)}`, { dir });
  }
}

function contains(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

async function updateStore(fn: (entries: TrustEntry[]) => TrustEntry[]): Promise<void> {
  const lock = join(frameworkHome(), "trust.lock");
  await withFileLock(lock, async () => {
    const entries = fn(await listTrusted());
    await Deno.mkdir(dirname(trustStorePath()), { recursive: true });
    const file: TrustFile = { version: 1, trusted: entries };
    await writeFileAtomic(trustStorePath(), JSON.stringify(file, null, 2) + "\n");
  });
}

/**
 * Whether a folder (or an ancestor) is trusted.
 *
 * @param dir The folder.
 * @returns The trusted entry that covers it, or undefined.
 */
export async function trustedEntryFor(dir: string): Promise<TrustEntry | undefined> {
  const real = realDir(dir);
  return (await listTrusted()).find((e) => contains(e.path, real));
}

/**
 * Trusts a folder (idempotent).
 *
 * @example
 * ```ts
 * await trustFolder("./harnesses/hello");
 * ```
 * @param dir The folder.
 * @returns The entry and whether it was newly added.
 */
export async function trustFolder(dir: string): Promise<{ path: string; added: boolean }> {
  const real = realDir(dir);
  let added = false;
  await updateStore((entries) => {
    if (entries.some((e) => e.path === real)) return entries;
    added = true;
    return [...entries, { path: real, trusted_at: new Date().toISOString() }];
  });
  return { path: real, added };
}

/**
 * Removes a folder from the trust store. A folder that is not listed is `not_found`.
 *
 * @param dir The folder (it may no longer exist; then the path is matched as given).
 * @returns The removed path.
 */
export async function revokeTrust(dir: string): Promise<{ path: string }> {
  let real: string;
  try {
    real = await Deno.realPath(dir);
  } catch {
    real = dir;
  }
  let found = false;
  await updateStore((entries) => {
    found = entries.some((e) => e.path === real);
    return entries.filter((e) => e.path !== real);
  });
  if (!found) {
    throw notFound(
      `Not trusted: ${JSON.stringify(dir)}; \`framework trust --list\` shows the trusted folders`,
    );
  }
  return { path: real };
}
