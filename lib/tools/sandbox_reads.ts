/**
 * What sandboxed code may read of its harness folder. Everything but the sensitive paths: `.framework/`
 * (keys, trust, logs, traces), every `.env*` file or folder (credentials), every trace folder inside
 * the harness (today's and the former ones the hive knows), every file with more than one name (a hard link may be `.env` under another name), and
 * every symlink whose target is one of those or lies outside what the code may read (Deno checks the
 * path as written, not where a link leads, so a link to `.env` would pass a deny list by its name).
 *
 * The child-process sandbox reads the whole folder and is denied the sensitive paths; the Worker
 * sandbox (a compiled binary, where no `deno` can be started) cannot deny a path inside an allowed
 * folder, so it gets the same promise as an explicit allow-list: every entry of the folder except
 * the sensitive ones, folders that hold a sensitive entry expanded one level at a time.
 *
 * Both lists are taken when the sandbox starts. A path that appears later is not listed: in the
 * Worker it is not readable (the safe direction); in a child process a later `.env` would be, but code
 * cannot create one from a sensitive file, since reading that file is denied.
 *
 * @module
 */

import { join, resolve, sep } from "node:path";
import { ToolError } from "./tool.ts";
import { sensitiveName } from "../paths.ts";

/** The read permissions of a sandbox over its harness folder. */
export interface HarnessReads {
  /** Sensitive paths inside the folder (the child process's `--deny-read`). */
  deny: string[];
  /** Everything else, as the fewest paths that cover it (the Worker's read allow-list). */
  allow: string[];
}

/** Folders not walked: their contents are allowed or denied whole. */
const SKIP_DIRS = new Set(["node_modules", ".git"]);

/** How many entries one walk may look at before it gives up (and refuses to run code). */
export const MAX_WALK_ENTRIES = 20_000;

function within(parent: string, child: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/** Whether a real path is one code may read: inside the harness or a granted folder, not sensitive. */
function readableTarget(
  real: string,
  harnessDir: string,
  traces: readonly string[],
  granted: string[],
): boolean {
  if (traces.some((t) => within(t, real))) return false;
  if (within(harnessDir, real)) {
    const rel = real.slice(harnessDir.length);
    return !rel.split(sep).some((s) => s && sensitiveName(s));
  }
  return granted.some((g) => within(g, real));
}

/**
 * Walks a harness folder and splits it into what code may read and the sensitive paths it may not.
 *
 * @example
 * ```ts
 * const { deny, allow } = harnessReads("/h", ["/h/logs", "/h/old-logs"]);
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param traceDirs The protected trace folders (absolute): today's and the former ones.
 * @param granted Extra folders the spec lets code read (absolute).
 * @returns The deny list and the allow-list.
 * @throws `ToolError` (refused) when the folder has more than {@link MAX_WALK_ENTRIES} entries.
 */
export function harnessReads(
  harnessDir: string,
  traceDirs: readonly string[] = [],
  granted: string[] = [],
): HarnessReads {
  const traces = traceDirs.map((t) => resolve(t));
  const deny: string[] = [];
  let budget = MAX_WALK_ENTRIES;
  /** Lists a folder's allowed paths; returns null when the whole folder is clean. */
  const walk = (dir: string): string[] | null => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return null;
    }
    const allowed: string[] = [];
    let clean = true;
    for (const e of entries) {
      if (--budget < 0) {
        throw new ToolError(
          "refused",
          `The harness folder has more than ${MAX_WALK_ENTRIES} entries to check before code may read it; move data out of it or into node_modules/`,
        );
      }
      const path = join(dir, e.name);
      if (sensitiveName(e.name) || traces.some((t) => within(t, path))) {
        deny.push(path);
        clean = false;
        continue;
      }
      if (e.isSymlink) {
        let real: string | undefined;
        try {
          real = Deno.realPathSync(path);
        } catch {
          real = undefined; // dangling or a loop: nothing to read through it
        }
        if (real !== undefined && !readableTarget(real, harnessDir, traces, granted)) {
          deny.push(path);
          clean = false;
          continue;
        }
        allowed.push(path);
        continue;
      }
      if (e.isFile) {
        let links = 1;
        try {
          links = Deno.lstatSync(path).nlink ?? 1;
        } catch {
          // gone since the listing
        }
        if (links > 1) {
          deny.push(path);
          clean = false;
          continue;
        }
        allowed.push(path);
        continue;
      }
      if (e.isDirectory && !SKIP_DIRS.has(e.name)) {
        const inner = walk(path);
        if (inner === null) allowed.push(path);
        else {
          clean = false;
          allowed.push(...inner);
        }
        continue;
      }
      allowed.push(path);
    }
    if (traces.some((t) => within(dir, t) && t !== dir)) clean = false;
    return clean ? null : allowed;
  };
  const inner = walk(harnessDir);
  for (const t of traces) {
    if (within(harnessDir, t) && !deny.includes(t)) deny.push(t);
  }
  return { deny, allow: inner === null ? [harnessDir] : inner };
}
