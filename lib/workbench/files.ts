/**
 * The files of a harness a run may take as `input_file`: what the Run panel offers. The same rule
 * as the run's own check: nothing sensitive (`.framework/`, `.env*`), nothing in a trace folder
 * (today's or a former one), and no dependency or version-control folders; symbolic links are not
 * followed.
 *
 * @module
 */

import { join, relative } from "node:path";
import { sensitiveName } from "../paths.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";

/** Folders never listed. */
const SKIP = new Set(["node_modules", ".git"]);

/** The most files listed. */
export const MAX_LISTED_FILES = 500;

/**
 * The files of a harness, relative to its folder, sorted; at most {@link MAX_LISTED_FILES}.
 *
 * @example
 * ```ts
 * await harnessFiles("/h"); // { files: ["harness.yaml", "inputs/refund.txt"], truncated: false }
 * ```
 * @param dir The harness folder.
 * @returns The files, and whether the list was cut.
 */
export async function harnessFiles(dir: string): Promise<{ files: string[]; truncated: boolean }> {
  const loaded = await loadSpecCached(dir).catch(() => undefined);
  const traces = protectedTraceDirs(dir, loaded?.spec.logging?.trace_dir);
  const files: string[] = [];
  let truncated = false;
  const walk = async (folder: string): Promise<void> => {
    const entries: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(folder)) entries.push(e);
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (files.length >= MAX_LISTED_FILES) {
        truncated = true;
        return;
      }
      const path = join(folder, e.name);
      if (sensitiveName(e.name) || SKIP.has(e.name) || traces.includes(path)) continue;
      if (e.isDirectory) await walk(path);
      else if (e.isFile) files.push(relative(dir, path));
    }
  };
  await walk(dir);
  return { files, truncated };
}
