/**
 * Crash-safe file replacement: write a temporary file in the same folder, flush it, then rename it over
 * the target. A reader (or a crash) sees the old file or the new one, never a mix.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of the new file (e.g. `0o600`); defaults to the old file's mode, else 0o644. */
  mode?: number;
}

/**
 * Replaces `path` with `data` atomically.
 *
 * @example
 * ```ts
 * await writeFileAtomic("harness.yaml", "id: hello\n");
 * ```
 * @param path The file to replace or create.
 * @param data The new contents.
 * @param options File mode.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = (await Deno.stat(path)).mode ?? undefined;
      if (mode !== undefined) mode &= 0o777;
    } catch {
      mode = undefined;
    }
  }
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${crypto.randomUUID()}`);
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: mode ?? 0o644 });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } catch (err) {
    file.close();
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
  file.close();
  try {
    if (mode !== undefined) await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}
