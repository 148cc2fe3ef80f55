/**
 * Crash-safe file replacement: write a temporary file in the same folder, flush it, then rename it over
 * the target. A reader (or a crash) sees the old file or the new one, never a mix. Creating a file
 * that must not exist yet links the temporary file instead, which claims the name atomically.
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
  const tmp = await writeTemp(path, bytes, mode ?? 0o644);
  try {
    if (mode !== undefined) await Deno.chmod(tmp, mode);
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    throw err;
  }
}

/**
 * Creates `path` with `data` unless it exists, atomically: the bytes are written and flushed to a
 * temporary file first, then linked under the name, which fails when the name is taken. Two writers
 * can never claim one name, and a reader sees the whole file or none (never a part).
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("quarterly figures");
 * if (!(await createFileAtomic("uploads/report.txt", bytes))) console.log("taken, pick another name");
 * ```
 * @param path The file to create.
 * @param data Its contents.
 * @param options File mode (default 0o644).
 * @returns True when created, false when the name was taken (by a file, a folder or a link).
 */
export async function createFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<boolean> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const tmp = await writeTemp(path, bytes, options.mode ?? 0o644);
  try {
    if (options.mode !== undefined) await Deno.chmod(tmp, options.mode);
    await Deno.link(tmp, path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    if (!(err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotSupported)) {
      throw err;
    }
    // A file system without hard links: an exclusive create still claims the name alone.
    return await createExclusive(path, bytes, options.mode ?? 0o644);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

async function createExclusive(path: string, bytes: Uint8Array, mode: number): Promise<boolean> {
  try {
    await writeNew(path, bytes, mode);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) return false;
    throw err;
  }
}

/** Writes and flushes a new temporary file beside `path`; returns its path. */
async function writeTemp(path: string, bytes: Uint8Array, mode: number): Promise<string> {
  const tmp = join(dirname(path), `.${basename(path)}.tmp-${crypto.randomUUID()}`);
  await writeNew(tmp, bytes, mode);
  return tmp;
}

/** Creates a file that must not exist, writes and flushes it; removes it again on failure. */
async function writeNew(path: string, bytes: Uint8Array, mode: number): Promise<void> {
  const file = await Deno.open(path, { write: true, createNew: true, mode });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.syncData();
  } catch (err) {
    file.close();
    await Deno.remove(path).catch(() => {});
    throw err;
  }
  file.close();
}
