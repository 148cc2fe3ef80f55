/**
 * Files uploaded through a generated page: stored under `<harness>/workspace/uploads/` through the
 * one safe-path check (never into `.framework/`, a `.env*` file or the trace folder), with a safe
 * file name and a size limit; the run then takes the relative path as `input_file`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { badInput } from "../errors.ts";
import { createFileAtomic } from "../fs/atomic_write.ts";
import { pathExists } from "../fs/exists.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { sensitiveName } from "../paths.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { loadSpec } from "../harness_spec/load.ts";

/** The folder uploads go to, relative to the harness. */
export const UPLOADS_DIR = "workspace/uploads";

/** The largest upload (1 MiB: what a run accepts as `input_file`). */
export const MAX_UPLOAD_BYTES = 1024 * 1024;

/**
 * A file name made safe: its last path segment, letters, digits, `.`, `-` and `_` only, at most 100
 * characters, never a dot file.
 *
 * @example
 * ```ts
 * safeUploadName("../../My Report (v2).pdf"); // "My-Report-v2-.pdf"
 * ```
 * @param name The name the browser sent.
 * @returns The safe name.
 * @throws `bad_input` when nothing usable is left, or the name is a sensitive one.
 */
export function safeUploadName(name: string): string {
  const last = String(name).split(/[\\/]/).pop() ?? "";
  if (sensitiveName(last)) {
    throw badInput(`Refused upload name ${JSON.stringify(name)}: ${sensitiveName(last)}`);
  }
  const cleaned = last.replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[.-]+/, "").slice(0, 100);
  if (!cleaned || !/[A-Za-z0-9]/.test(cleaned)) {
    throw badInput(`Refused upload name ${JSON.stringify(name)}: give the file a name`);
  }
  return cleaned;
}

/**
 * Stores an upload and returns its path relative to the harness (for `input_file`). An existing
 * file of that name is kept: the new one gets `-2`, `-3`, … before its extension. The name is claimed
 * atomically with the whole content in place, so uploads of one name at once each get a file of
 * their own, holding their own bytes.
 *
 * @param dir The harness folder.
 * @param name The file's name as sent.
 * @param bytes Its content.
 * @returns The relative path and size.
 */
export async function storeUpload(
  dir: string,
  name: string,
  bytes: Uint8Array,
): Promise<{ path: string; bytes: number }> {
  if (bytes.length > MAX_UPLOAD_BYTES) {
    throw badInput(`The file is ${bytes.length} bytes; uploads are at most ${MAX_UPLOAD_BYTES}`);
  }
  const loaded = await loadSpec(dir);
  const safe = safeUploadName(name);
  const dot = safe.lastIndexOf(".");
  const [stem, ext] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, ""];
  const traces = protectedTraceDirs(loaded.dir, loaded.spec.logging?.trace_dir);
  for (let n = 1; n < 1000; n++) {
    const rel = `${UPLOADS_DIR}/${n === 1 ? safe : `${stem}-${n}${ext}`}`;
    let target;
    try {
      target = await resolveSafePath(loaded.dir, rel, { traceDirs: traces, protectSpec: true });
    } catch (err) {
      // A name another upload has just claimed (its file briefly has two names while it is being
      // linked in), or anything else already there, is taken: the next name is tried.
      if (await pathExists(join(loaded.dir, rel))) continue;
      throw err;
    }
    await Deno.mkdir(dirname(target.absolute), { recursive: true });
    if (await createFileAtomic(target.absolute, bytes)) {
      return { path: target.relative, bytes: bytes.length };
    }
  }
  throw badInput(`Too many uploads named ${JSON.stringify(safe)}; rename the file`);
}
