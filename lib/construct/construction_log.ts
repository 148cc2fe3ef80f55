/**
 * The construction log: one JSON line per successful change of `harness.yaml`, in
 * `<harness>/.framework/construction.log` (ts, actor, op, path, old, new).
 *
 * @module
 */

import { constructionLogPath, harnessStateDir } from "../paths.ts";

/** One line of the construction log. */
export interface ConstructionEntry {
  ts: string;
  /** `cli`, `http:<key_id>`, `proposal:<id>`, `workbench`, ... */
  actor: string;
  op: "set" | "add" | "remove" | "init" | "proposal" | "replace" | "fork" | "restore";
  path: string;
  old: unknown;
  new: unknown;
}

/**
 * Appends one entry. Called under the spec lock, so lines never interleave.
 *
 * @param harnessDir The harness folder.
 * @param entry The entry (its `ts` is filled in when missing).
 */
export async function appendConstructionLog(
  harnessDir: string,
  entry: Omit<ConstructionEntry, "ts"> & { ts?: string },
): Promise<void> {
  await Deno.mkdir(harnessStateDir(harnessDir), { recursive: true });
  const line = JSON.stringify({
    ts: entry.ts ?? new Date().toISOString(),
    ...entry,
    old: entry.old ?? null,
    new: entry.new ?? null,
  });
  await Deno.writeTextFile(constructionLogPath(harnessDir), line + "\n", { append: true });
}

/**
 * Reads the whole log (skipping lines that do not parse).
 *
 * @param harnessDir The harness folder.
 * @returns The entries, oldest first.
 */
export async function readConstructionLog(harnessDir: string): Promise<ConstructionEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(constructionLogPath(harnessDir));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const out: ConstructionEntry[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      // A torn last line after a crash: skip it.
    }
  }
  return out;
}
