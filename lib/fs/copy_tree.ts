/**
 * Copying a folder tree into a new one, file by file, with a rule for what to leave out. Symbolic
 * links are never followed nor copied (a link could name a file outside the tree).
 *
 * @module
 */

import { join, relative } from "node:path";

/** An entry the copy meets: its path relative to the source, and what it is. */
export interface CopyEntry {
  relative: string;
  absolute: string;
  isDirectory: boolean;
}

/**
 * Copies `src` into the existing, empty folder `dst`.
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
 */
export async function copyTree(
  src: string,
  dst: string,
  keep: (entry: CopyEntry) => boolean | Promise<boolean>,
): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  const folders = [src];
  while (folders.length) {
    const folder = folders.pop()!;
    for await (const e of Deno.readDir(folder)) {
      if (e.isSymlink || (!e.isFile && !e.isDirectory)) continue;
      const absolute = join(folder, e.name);
      const rel = relative(src, absolute);
      if (!(await keep({ relative: rel, absolute, isDirectory: e.isDirectory }))) continue;
      if (e.isDirectory) {
        await Deno.mkdir(join(dst, rel));
        folders.push(absolute);
      } else {
        await Deno.copyFile(absolute, join(dst, rel));
        files += 1;
        bytes += (await Deno.stat(absolute)).size;
      }
    }
  }
  return { files, bytes };
}
