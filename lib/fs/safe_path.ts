/**
 * The one sensitive-path check, used by `input_file`, the builtin file tools, uploads and the
 * evolver: a path must be relative, stay inside the harness folder after symlinks are resolved, and
 * must not touch `.framework/` (trust store, keys, logs, traces), any `.env*` file, or a trace folder
 * wherever it lives (the configured one, and the former ones the hive knows). Matching is case-insensitive. A regular file with more than one
 * name (a hard link) is refused too, since one of its other names may be a sensitive file.
 * {@link openChecked} applies the link rule again to the file it opens (device and inode), for every
 * reader and copier of harness files: `input_file`, `file_read`, the served page, package and fork
 * copies.
 *
 * @module
 */

import { basename, dirname, isAbsolute, join, normalize, relative, resolve, sep } from "node:path";
import { badInput } from "../errors.ts";
import { sensitiveName } from "../paths.ts";

/** Options of {@link resolveSafePath}. */
export interface SafePathOptions {
  /**
   * The protected trace folders (absolute), refused wherever they live: today's `logging.trace_dir`
   * and every former one the hive knows (`protectedTraceDirs` in `lib/journal/trace_dir.ts`).
   */
  traceDirs?: readonly string[];
  /** Also refuse `harness.yaml` itself (writes). */
  protectSpec?: boolean;
}

/** A path that passed the check. */
export interface SafePath {
  /** Absolute path with symlinks resolved (the file may not exist yet). */
  absolute: string;
  /** Path relative to the harness folder, with `/` separators. */
  relative: string;
}

/**
 * Containment by path segments: `child` is `parent` or inside it. Case-insensitive only where asked
 * (the trace folder rule).
 *
 * @param parent An absolute path.
 * @param child An absolute path.
 * @param ignoreCase Compare without case.
 * @returns Whether `child` lies within `parent`.
 */
export function within(parent: string, child: string, ignoreCase = false): boolean {
  const p = ignoreCase ? parent.toLowerCase() : parent;
  const c = ignoreCase ? child.toLowerCase() : child;
  return c === p || c.startsWith(p.endsWith(sep) ? p : p + sep);
}

/** Thrown by {@link realPathOfPrefix} when links go round in circles. */
export class LinkLoop extends Error {}

/**
 * Resolves symlinks in the longest existing prefix of a path and appends the rest. A dangling symlink
 * is followed by hand (its target may not exist yet), so a write through it cannot land outside.
 *
 * @param path An absolute path.
 * @param depth Links followed so far (a loop throws {@link LinkLoop}).
 * @returns Where the path really points.
 */
export async function realPathOfPrefix(path: string, depth = 0): Promise<string> {
  if (depth > 40) throw new LinkLoop();
  const rest: string[] = [];
  let current = path;
  while (true) {
    try {
      // Metadata calls on local paths take microseconds: done synchronously, they skip a thread-pool
      // round trip on every tool call that names a file.
      const real = Deno.realPathSync(current);
      return rest.length ? join(real, ...rest.reverse()) : real;
    } catch (err) {
      if (err instanceof Deno.errors.FilesystemLoop) throw new LinkLoop();
      if (!(err instanceof Deno.errors.NotFound) && !(err instanceof Deno.errors.NotADirectory)) {
        throw err;
      }
      let info: Deno.FileInfo | undefined;
      try {
        info = Deno.lstatSync(current);
      } catch {
        info = undefined;
      }
      if (info?.isSymlink) {
        const target = resolve(dirname(current), Deno.readLinkSync(current));
        return await realPathOfPrefix(
          rest.length ? join(target, ...rest.reverse()) : target,
          depth + 1,
        );
      }
      const parent = dirname(current);
      if (parent === current) return path;
      rest.push(basename(current));
      current = parent;
    }
  }
}

/**
 * Why a path relative to the harness folder is sensitive by name: a segment is `.framework` or a
 * `.env*` name.
 *
 * @param rel The relative path.
 * @returns The reason, or undefined.
 */
export function sensitiveSegment(rel: string): string | undefined {
  for (const segment of rel.split(/[\\/]/)) {
    const reason = sensitiveName(segment);
    if (reason) return reason;
  }
  return undefined;
}

/**
 * Checks a user-supplied path against the harness folder and returns where it really points.
 *
 * @example
 * ```ts
 * (await resolveSafePath("/h", "workspace/a.txt")).relative; // "workspace/a.txt"
 * await resolveSafePath("/h", "../etc/passwd"); // throws bad_input
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param path The path as given, relative to the harness folder.
 * @param options The protected trace folders, and whether `harness.yaml` is refused.
 * @returns The absolute and relative forms.
 */
export async function resolveSafePath(
  harnessDir: string,
  path: string,
  options: SafePathOptions = {},
): Promise<SafePath> {
  const refuse = (why: string) => refusedPath(path, why);
  if (typeof path !== "string" || path.trim() === "") throw refuse("it is empty");
  if (path.includes("\0")) throw refuse("it contains a NUL character");
  if (isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path)) {
    throw refuse("absolute paths are not allowed; give a path relative to the harness folder");
  }
  const lexical = normalize(join(harnessDir, path));
  if (!within(harnessDir, lexical)) throw refuse("it escapes the harness folder");
  const lexicalRel = relative(harnessDir, lexical);
  const lexicalWhy = sensitiveSegment(lexicalRel);
  if (lexicalWhy) throw refuse(lexicalWhy);

  let real: string;
  try {
    real = await realPathOfPrefix(lexical);
  } catch (err) {
    if (err instanceof LinkLoop) throw refuse("it goes through a symlink loop");
    throw refuse(`it cannot be resolved (${(err as Error).name})`);
  }
  if (!within(harnessDir, real)) {
    throw refuse("it leads outside the harness folder through a symlink");
  }
  const rel = relative(harnessDir, real);
  const realWhy = sensitiveSegment(rel);
  if (realWhy) throw refuse(realWhy);
  for (const traces of options.traceDirs ?? []) {
    const named = resolve(traces);
    const traceReal = await realPathOfPrefix(named).catch(() => named);
    if (within(traceReal, real, true) || within(named, lexical, true)) {
      throw refuse("it is inside a trace folder");
    }
  }
  let info: Deno.FileInfo | undefined;
  try {
    info = Deno.statSync(real);
  } catch {
    info = undefined;
  }
  const linked = info && hardLinkReason(info);
  if (linked) throw refuse(linked);
  const relPosix = rel.split(sep).join("/") || ".";
  if (options.protectSpec && relPosix.toLowerCase() === "harness.yaml") {
    throw refuse("harness.yaml is changed through the construction API, not written directly");
  }
  return { absolute: real, relative: relPosix };
}

/** The one refusal of a path, as every check words it. */
function refusedPath(path: string, why: string) {
  return badInput(`Refused path ${JSON.stringify(path)}: ${why}`, { path, reason: why });
}

/**
 * The hard-link rule: another name of a multiply-linked regular file may be `.env`, lie in
 * `.framework/` or outside the harness folder, and a hard link carries no trace of where its other
 * names are, so every regular file with more than one name is refused.
 *
 * @param info The file's metadata.
 * @returns Why it is refused, or undefined for a file with one name (and for anything else).
 */
export function hardLinkReason(info: Deno.FileInfo): string | undefined {
  if (!info.isFile || (info.nlink ?? 1) <= 1) return undefined;
  return `it is a hard link (the file has ${info.nlink} names, and another may be a sensitive file or lie outside the harness folder); replace it with a copy of the file (cp), not a link`;
}

/**
 * Opens a checked harness file for reading, and refuses it unless the file opened is the file that
 * was checked: a regular file (not a symlink) under `absolute`, with one name, whose device and inode
 * are those of the open handle. A name swapped for a link between the check and the open is refused.
 * Every reader and copier of harness files opens through here: `input_file`, `file_read`, the served
 * page, packages, forks.
 *
 * @example
 * ```ts
 * const { file } = await openChecked("/h/notes.txt", "notes.txt");
 * ```
 * @param absolute The file (symlinks already resolved by the caller's check).
 * @param shown The path as the error names it (relative to the harness folder).
 * @param options `linked`: a file whose other names are known to be harmless may have several (a
 *   `.env` copied as `.env` stays protected by its name).
 * @returns The open file (the caller closes it) and its metadata.
 * @throws `bad_input` for a link, a hard link or a file that changed; `Deno.errors.NotFound` when
 *   there is no file.
 */
export async function openChecked(
  absolute: string,
  shown: string,
  options: { linked?: boolean } = {},
): Promise<{ file: Deno.FsFile; info: Deno.FileInfo }> {
  const check = (info: Deno.FileInfo) => {
    if (info.isSymlink) return "it is a symbolic link";
    if (!info.isFile) return "it is not a regular file";
    return options.linked ? undefined : hardLinkReason(info);
  };
  // A missing file is NotFound as it is (a caller may have a default); nothing else is. The metadata
  // calls are synchronous (microseconds on a local file, no thread-pool round trip: `file_read` runs
  // on every tool call); the open is not, since a name swapped for a FIFO would block it.
  const named = Deno.lstatSync(absolute);
  const before = check(named);
  if (before) throw refusedPath(shown, before);
  const file = await Deno.open(absolute, { read: true });
  try {
    const info = file.statSync();
    const why = check(info) ??
      (info.dev !== named.dev || info.ino !== named.ino
        ? "it was replaced while it was being read; try again"
        : undefined);
    if (why) throw refusedPath(shown, why);
    return { file, info };
  } catch (err) {
    file.close();
    throw err;
  }
}

/**
 * Reads a file of the harness through the one check: {@link resolveSafePath} for its name, then
 * {@link openChecked} for the file opened.
 *
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param path The path, relative to the harness folder.
 * @param options As for {@link resolveSafePath}.
 * @returns The bytes and the checked path.
 * @throws `bad_input` for a refused path (a missing file is `Deno.errors.NotFound`).
 */
export async function readSafeFile(
  harnessDir: string,
  path: string,
  options: SafePathOptions = {},
): Promise<{ bytes: Uint8Array; path: SafePath }> {
  const safe = await resolveSafePath(harnessDir, path, options);
  const { file } = await openChecked(safe.absolute, path);
  return { bytes: await readAllAndClose(file), path: safe };
}

/**
 * Reads the start of a checked harness file: opens it through {@link openChecked} (the file read is
 * the file that was checked) and reads at most `max` bytes of it, never more than a caller needs.
 * The builtin `file_read` (its `max_bytes`) and a run's `input_file` (1 MiB) read through here.
 *
 * @example
 * ```ts
 * const { bytes, size } = await readCheckedStart("/h/notes.txt", "notes.txt", 1024);
 * ```
 * @param absolute The file (symlinks already resolved by the caller's check).
 * @param shown The path as an error names it.
 * @param max The most bytes to read.
 * @returns The bytes read and the size of the file opened (its own `stat`).
 * @throws As {@link openChecked}.
 */
export async function readCheckedStart(
  absolute: string,
  shown: string,
  max: number,
): Promise<{ bytes: Uint8Array; size: number }> {
  const { file, info } = await openChecked(absolute, shown);
  // No more than the file held when it was opened: a file that grows meanwhile is read to that size.
  return { bytes: await readAndClose(file, Math.min(max, info.size)), size: info.size };
}

/**
 * Reads an open file to its end and closes it.
 *
 * @param file The file.
 * @returns Its bytes.
 */
export function readAllAndClose(file: Deno.FsFile): Promise<Uint8Array> {
  return readAndClose(file, Infinity);
}

/** Reads at most `max` bytes of an open file and closes it. */
async function readAndClose(file: Deno.FsFile, max: number): Promise<Uint8Array> {
  try {
    const chunks: Uint8Array[] = [];
    let total = 0;
    while (total < max) {
      const chunk = new Uint8Array(Math.min(64 * 1024, max - total));
      const n = await file.read(chunk);
      if (n === null) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
    }
    if (chunks.length === 1) return chunks[0]!;
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      bytes.set(c, at);
      at += c.length;
    }
    return bytes;
  } finally {
    file.close();
  }
}
