/**
 * Copying a folder tree into a new one, file by file, with a rule for what to leave out. Symbolic
 * links are never followed nor copied (a link could name a file outside the tree), and every file is
 * opened through the one sensitive-path rule ({@link openChecked}): a hard link is refused, since its
 * bytes may be those of `.env` or of a file outside the tree, and the copy would give them an
 * ordinary name. {@link copyTreeWhole} builds a new folder beside its place and renames it in, so
 * a copy killed midway leaves no half-made folder under the name.
 *
 * @module
 */

import { basename, dirname, join, relative } from "node:path";
import { isProcessAlive, ownProcess } from "../process_identity.ts";
import { openChecked, sensitiveSegment } from "./safe_path.ts";

/** An entry the copy meets: its path relative to the source, and what it is. */
export interface CopyEntry {
  relative: string;
  absolute: string;
  isDirectory: boolean;
}

/**
 * The folders and regular files of a tree that `keep` accepts, each folder before what it holds.
 * Symbolic links and special files are never met; a folder left out is not entered.
 *
 * @param src The folder to walk.
 * @param keep Whether an entry is kept.
 * @returns The kept entries.
 */
export async function* walkTree(
  src: string,
  keep: (entry: CopyEntry) => boolean | Promise<boolean>,
): AsyncGenerator<CopyEntry> {
  const folders = [src];
  while (folders.length) {
    const folder = folders.pop()!;
    for await (const e of Deno.readDir(folder)) {
      if (e.isSymlink || (!e.isFile && !e.isDirectory)) continue;
      const absolute = join(folder, e.name);
      const entry = { relative: relative(src, absolute), absolute, isDirectory: e.isDirectory };
      if (!(await keep(entry))) continue;
      if (e.isDirectory) folders.push(absolute);
      yield entry;
    }
  }
}

/**
 * Copies `src` into the existing, empty folder `dst`. A file that has another name is refused
 * (`bad_input` naming it), unless the copy keeps it under a sensitive name (`.env*`,
 * `.framework/`), which protects it in the copy as in the source.
 *
 * @example
 * ```ts
 * await Deno.mkdir("/tmp/b");
 * await copyTree("/tmp/a", "/tmp/b", (e) => !e.relative.startsWith(".git"));
 * ```
 * @param src The folder to copy.
 * @param dst The folder to copy into.
 * @param keep Whether an entry is copied (a folder left out is not entered).
 * @returns How many files and bytes were copied.
 * @throws `bad_input` for a hard link.
 */
export async function copyTree(
  src: string,
  dst: string,
  keep: (entry: CopyEntry) => boolean | Promise<boolean>,
): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for await (const e of walkTree(src, keep)) {
    const target = join(dst, e.relative);
    if (e.isDirectory) {
      await Deno.mkdir(target);
      continue;
    }
    const { file, info } = await openChecked(e.absolute, e.relative, {
      linked: sensitiveSegment(e.relative) !== undefined,
    });
    let out: Deno.FsFile;
    try {
      out = await Deno.open(target, {
        write: true,
        createNew: true,
        mode: (info.mode ?? 0o644) & 0o777,
      });
    } catch (err) {
      file.close();
      throw err;
    }
    await file.readable.pipeTo(out.writable); // closes both
    files += 1;
    bytes += info.size;
  }
  return { files, bytes };
}

/** A copy being built beside its place: `.<name>.copy-<pid>-<start>-<random>`. */
const BUILDING = /^\..+\.copy-(\d+)-([A-Za-z0-9]+)-[a-z0-9]+$/;

/**
 * Copies `src` into a new folder `dst`, whole or not at all: the copy is built beside `dst` under a
 * hidden temporary name that names its process, completed by `finish`, then renamed into place. A
 * process killed midway (kill -9) leaves only its temporary folder, never a half-made `dst`; every
 * such folder whose process is gone is removed before a copy starts in the same parent folder.
 *
 * @example
 * ```ts
 * await copyTreeWhole("/h/base", "/h/base-fr", () => true, (dir) => Deno.writeTextFile(`${dir}/x`, ""));
 * ```
 * @param src The folder to copy.
 * @param dst The new folder (its parent exists; it does not).
 * @param keep Whether an entry is copied.
 * @param finish Writes what the copy adds, in the temporary folder, before it is put in place.
 * @returns How many files and bytes were copied.
 * @throws `Deno.errors.AlreadyExists` when `dst` exists; `bad_input` for a hard link.
 */
export async function copyTreeWhole(
  src: string,
  dst: string,
  keep: (entry: CopyEntry) => boolean | Promise<boolean>,
  finish: (dir: string) => Promise<void> = async () => {},
): Promise<{ files: number; bytes: number }> {
  const parent = dirname(dst);
  await sweepStaleCopies(parent);
  const taken = () => new Deno.errors.AlreadyExists(`${dst} already exists`);
  if (await present(dst)) throw taken();
  const me = ownProcess();
  const random = crypto.randomUUID().slice(0, 8);
  const building = join(parent, `.${basename(dst)}.copy-${me.pid}-${me.start}-${random}`);
  await Deno.mkdir(building);
  try {
    const copied = await copyTree(src, building, keep);
    await finish(building);
    // rename(2) would replace an empty folder of that name: look once more just before.
    if (await present(dst)) throw taken();
    try {
      await Deno.rename(building, dst);
    } catch (err) {
      if (await present(dst)) throw taken();
      throw err;
    }
    return copied;
  } catch (err) {
    await Deno.remove(building, { recursive: true }).catch(() => {});
    throw err;
  }
}

async function present(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Removes the copies a dead process left half-built in a folder (see {@link copyTreeWhole}).
 *
 * @param folder The parent folder of the copies.
 */
export async function sweepStaleCopies(folder: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(folder));
  } catch {
    return;
  }
  for (const e of entries) {
    const owner = e.isDirectory ? BUILDING.exec(e.name) : null;
    if (!owner || isProcessAlive(Number(owner[1]), owner[2]!)) continue;
    await Deno.remove(join(folder, e.name), { recursive: true }).catch(() => {});
  }
}
